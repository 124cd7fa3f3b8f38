"""The command line: options, the run, one result line per module, a JSON report."""

from __future__ import annotations

import argparse
import json
import requests
import sys
import time
from typing import Any, Optional

from .core import DISCOVERY_PATH, origin_of
from .browser import BackChannel
from .module import Context
from .plans import BACKCHANNEL_PLAN, BASIC_PLAN, CONFIG_PLAN, oidcc_idtoken_signature
from .rp_server import RpEndpoints


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="Basic OP, Config OP and Back-Channel OP conformance checks (port of the OpenID Foundation suite)")
    ap.add_argument("--issuer", required=True, help="the OP's issuer; discovery is <issuer>/.well-known/openid-configuration")
    ap.add_argument("--client-id", required=True)
    ap.add_argument("--client-secret", required=True)
    ap.add_argument("--second-client-id", help="client2 for oidcc-refresh-token")
    ap.add_argument("--second-client-secret")
    ap.add_argument("--post-client-id", help="client for oidcc-server-client-secret-post (default: --client-id)")
    ap.add_argument("--post-client-secret")
    ap.add_argument("--redirect-uri", required=True, help="registered redirect URI of both clients (need not exist)")
    ap.add_argument("--username", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--ca-bundle", help="CA bundle (PEM) to verify the OP's TLS certificate")
    ap.add_argument("--login-hint", help="server.login_hint for oidcc-login-hint (default buffy@<issuer host>)")
    ap.add_argument("--ui-locales", help="server.ui_locales for oidcc-ui-locales (default 'se')")
    ap.add_argument("--plan", choices=["basic", "config", "backchannel", "all"], default="all",
                    help="all: basic + config; backchannel (the Back-Channel OP plan) needs --rp-listen and a client "
                         "whose back-channel logout URI and post-logout redirect URI are the port's (docs/conformance.md)")
    ap.add_argument("--rp-listen", metavar="HOST:PORT",
                    help="where the port serves the relying party's <base>/backchannel_logout and <base>/post_logout_redirect "
                         "(base http://HOST:PORT, or https:// with --rp-tls-cert)")
    ap.add_argument("--rp-tls-cert", help="PEM certificate chain for the --rp-listen endpoint (the OP must trust it)")
    ap.add_argument("--rp-tls-key", help="PEM private key of --rp-tls-cert")
    ap.add_argument("--response-mode", choices=["form_post"],
                    help="the plan's ResponseMode variant (the Form Post Basic OP plan: --plan basic --response-mode form_post)")
    ap.add_argument("--only", help="comma-separated module names to run")
    ap.add_argument("--timeout", type=float, default=30.0, help="HTTP timeout, seconds")
    ap.add_argument("--include-not-applicable", action="store_true",
                    help="also run oidcc-idtoken-signature (kid + RS256) with the static client, although the suite "
                         "drops it from the plan for static clients")
    ap.add_argument("--json", help="also write all condition results to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every condition result")
    args = ap.parse_args(argv)

    rp: Optional[RpEndpoints] = None
    if args.plan == "backchannel":
        host, _, port = (args.rp_listen or "").rpartition(":")
        if not host or not port.isdigit():
            print("--plan backchannel needs --rp-listen HOST:PORT (the relying party's endpoints)", file=sys.stderr)
            return 2
        rp = RpEndpoints(host.strip("[]"), int(port), args.rp_tls_cert, args.rp_tls_key or args.rp_tls_cert)
        try:
            rp.start()
        except OSError as e:
            print(f"cannot listen on {args.rp_listen}: {e}", file=sys.stderr)
            return 2
    try:
        return run(args, rp)
    finally:
        if rp is not None:
            rp.stop()


def run(args: argparse.Namespace, rp: Optional[RpEndpoints]) -> int:
    issuer = args.issuer
    discovery_url = issuer.rstrip("/") + DISCOVERY_PATH
    client = {"client_id": args.client_id, "client_secret": args.client_secret}
    client2 = ({"client_id": args.second_client_id, "client_secret": args.second_client_secret or ""}
               if args.second_client_id else None)
    post_client = ({"client_id": args.post_client_id, "client_secret": args.post_client_secret or ""}
                   if args.post_client_id else dict(client))
    verify: Any = args.ca_bundle if args.ca_bundle else True
    http = BackChannel(verify, args.timeout)
    origins = {origin_of(issuer)}
    try:
        d = http.get(discovery_url).json
        if isinstance(d, dict):
            for k in ("authorization_endpoint", "issuer"):
                if isinstance(d.get(k), str):
                    origins.add(origin_of(d[k]))
    except requests.RequestException:
        pass
    ctx = Context(issuer, discovery_url, client, client2, post_client, args.redirect_uri, args.username, args.password,
                  verify, args.timeout, args.login_hint, args.ui_locales, http, origins, args.verbose, args.response_mode, rp)

    plan: list[tuple[str, str, Any]] = []
    if args.plan in ("basic", "all"):
        plan += [("Form Post Basic OP" if args.response_mode else "Basic OP", n, f) for n, f in BASIC_PLAN]
    if args.plan in ("config", "all"):
        plan += [("Config OP", n, f) for n, f in CONFIG_PLAN]
    if args.plan == "backchannel":
        plan += [("Back-Channel OP", n, f) for n, f in BACKCHANNEL_PLAN]
    if args.only:
        wanted = {w.strip() for w in args.only.split(",") if w.strip()}
        unknown = wanted - {n for _, n, _ in plan}
        if unknown:
            print(f"unknown module(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        plan = [p for p in plan if p[1] in wanted]

    counts = {"PASS": 0, "FAIL": 0, "WARNING": 0, "SKIPPED": 0, "N/A": 0}
    report = []
    for plan_name, mod_name, fn in plan:
        started = time.time()
        if isinstance(fn, str) and args.include_not_applicable and mod_name == "oidcc-idtoken-signature":
            fn = oidcc_idtoken_signature
        if isinstance(fn, str):
            counts["N/A"] += 1
            print(f"SKIPPED {mod_name} {fn}", flush=True)
            report.append({"plan": plan_name, "module": mod_name, "result": "SKIPPED", "reason": fn, "not_applicable": True})
            continue
        m = fn(ctx)
        counts[m.outcome] += 1
        reasons = m.reasons()
        print(f"{m.outcome} {mod_name} {reasons}".rstrip(), flush=True)
        if args.verbose:
            for sev, cond, msg in m.results:
                print(f"    {sev:8} {cond} {msg}".rstrip())
        report.append({"plan": plan_name, "module": mod_name, "result": m.outcome, "reason": reasons,
                       "seconds": round(time.time() - started, 1),
                       "conditions": [{"result": s, "condition": c, "message": msg} for s, c, msg in m.results]})
    total = sum(counts.values())
    print(f"SUMMARY {total} modules: {counts['PASS']} PASS, {counts['WARNING']} WARNING, {counts['FAIL']} FAIL, "
          f"{counts['SKIPPED']} SKIPPED, {counts['N/A']} not applicable (static client)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 1 if counts["FAIL"] else 0
