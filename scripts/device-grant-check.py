#!/usr/bin/env python3
"""The device authorization grant (RFC 8628, docs/device-grant.md) end to end with a device-flow
client nobody here wrote: Microsoft's MSAL for Python (`PublicClientApplication` with
`oidc_authority`, `initiate_device_flow`, `acquire_token_by_device_flow`).

    scripts/device-grant-check.py BIN     (BIN: the built idconnect; run with .venv-peers' python)

With IDCONNECT_POSTGRES_URL two instances share a fresh database, as behind a load balancer: the
device (MSAL) talks to A while the person's browser (requests, following the pages' own forms and
redirects) is served by B. Without it, one instance on SQLite serves both.

Checks: discovery names the device endpoint and grant; MSAL gets a user code and polls; the person
opens `verification_uri_complete`, sees the app named, continues, signs in on the login form and
lands on "Device signed in"; MSAL's poll then gets an access, refresh and ID token for alice, and
the access token works at userinfo on the other instance. A second device whose person presses
Cancel gets `access_denied` in MSAL. A third device's code typed wrong shows the form again.

MSAL accepts only https authorities; on loopback this script lets it use plain http by replacing
its URL check (`msal.authority.canonicalize`) for 127.0.0.1 only. Everything else is MSAL's own.
"""
import os
import re
import sys
import tempfile
import threading
import time
import urllib.parse

import msal
import msal.authority
import msal.token_cache
import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from multi_instance_support import fail, feature_instances, write_static_config  # noqa: E402

APP = "kid_tv"


def allow_loopback_http():
    original = msal.authority.canonicalize

    def canonicalize(url):
        parts = urllib.parse.urlparse(url)
        if parts.scheme == "http" and parts.hostname == "127.0.0.1":
            return parts, parts.hostname, (parts.path.split("/") + ["", "root"])[1] or "root"
        return original(url)

    msal.authority.canonicalize = canonicalize
    msal.token_cache.canonicalize = canonicalize


def write_config(binary, work):
    def document(password_hash):
        return {"environments": [{
            "appKey": APP, "name": "Living Room TV", "defaultAuthService": "tv",
            "authServices": [{
                "id": "tv", "name": "Corporate sign-in", "redirectUri": ["http://127.0.0.1/unused"],
                "deviceGrant": {"enabled": True, "lifetime": 300, "interval": 1},
                "provider": {"type": "static", "options": {"users": [{"username": "alice", "passwordHash": password_hash}]}},
            }],
        }]}

    return write_static_config(binary, work, "tv", document)


class Person:
    """A browser that follows the pages: every URL of the issuer goes to `port` (the instance a
    load balancer picked for this browser)."""

    def __init__(self, issuer, port):
        self.issuer, self.base = issuer, f"http://127.0.0.1:{port}"
        self.session = requests.Session()

    def local(self, url):
        return self.base + url[len(self.issuer):] if url.startswith(self.issuer) else url

    def get(self, url):
        return self.follow(self.session.get(self.local(url), allow_redirects=False, timeout=10))

    def post(self, url, data):
        return self.follow(self.session.post(self.local(url), data=data, allow_redirects=False, timeout=10))

    def follow(self, answer):
        for _ in range(10):
            if answer.status_code not in (302, 303):
                return answer
            answer = self.session.get(self.local(answer.headers["Location"]), allow_redirects=False, timeout=10)
        fail("too many redirects")

    @staticmethod
    def field(page, name):
        found = re.search(rf'name="{name}" value="([^"]*)"', page.text)
        if not found:
            fail(f"no {name} on the page: {page.status_code} {page.text[:300]}")
        return found.group(1)

    @staticmethod
    def action(page):
        found = re.search(r'<form method="post" action="([^"]+)"', page.text)
        if not found:
            fail(f"no form on the page: {page.status_code} {page.text[:300]}")
        return found.group(1).replace("&amp;", "&")

    def confirm(self, complete_uri, decision):
        page = self.get(complete_uri)
        if page.status_code != 200 or "Living Room TV" not in page.text:
            fail(f"the confirmation does not name the app: {page.status_code} {page.text[:300]}")
        return self.post(self.action(page), {"csrf_token": self.field(page, "csrf_token"),
                                             "user_code": self.field(page, "user_code"), "decision": decision})


def device(app, deadline=90):
    """MSAL's device flow, polling in a thread; returns (flow, result holder, thread)."""
    flow = app.initiate_device_flow(scopes=[])
    if "user_code" not in flow:
        fail(f"MSAL could not start the device flow: {flow}")
    holder = {}
    stop_at = time.time() + deadline

    def poll():
        holder["result"] = app.acquire_token_by_device_flow(flow, exit_condition=lambda f: time.time() >= stop_at)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    return flow, holder, thread


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="idc-device-")
    config = write_config(binary, work)
    issuer, instances, shared = feature_instances(binary, config, work, "device")
    try:
        for instance in instances:
            instance.start()
        browser_port = instances[-1].port
        discovery = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
        if discovery.get("device_authorization_endpoint") != f"{issuer}/oauth/device_authorization" \
                or "urn:ietf:params:oauth:grant-type:device_code" not in discovery.get("grant_types_supported", []):
            fail(f"discovery does not offer the device grant: {discovery}")

        allow_loopback_http()
        app = msal.PublicClientApplication(APP, oidc_authority=issuer, instance_discovery=False, timeout=10)

        flow, holder, thread = device(app)
        if not re.fullmatch(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}", flow["user_code"]):
            fail(f"unexpected user code {flow['user_code']}")
        person = Person(issuer, browser_port)
        login = person.confirm(flow["verification_uri_complete"], "allow")
        signed = person.post(Person.action(login), {"csrf_token": Person.field(login, "csrf_token"),
                                                    "username": "alice", "password": "pw"})
        if signed.status_code != 200 or "Device signed in" not in signed.text:
            fail(f"the sign-in did not end on 'Device signed in': {signed.status_code} {signed.text[:300]}")
        thread.join(60)
        result = holder.get("result") or {}
        if "access_token" not in result or "refresh_token" not in result:
            fail(f"MSAL got no tokens: { {k: v for k, v in result.items() if not k.endswith('token')} }")
        if result.get("id_token_claims", {}).get("preferred_username", "alice") != "alice":
            fail(f"ID token for someone else: {result.get('id_token_claims')}")
        userinfo = requests.get(f"http://127.0.0.1:{browser_port}/oauth/userinfo",
                                headers={"Authorization": f"Bearer {result['access_token']}"}, timeout=10)
        if userinfo.status_code != 200:
            fail(f"the device's access token at userinfo: {userinfo.status_code} {userinfo.text[:200]}")
        print(f"  device signed in through MSAL (device on A, person on {'B' if shared else 'A'}); userinfo sub "
              f"{userinfo.json().get('sub', '?')[:12]}…")

        flow, holder, thread = device(app)
        cancelled = Person(issuer, browser_port).confirm(flow["verification_uri_complete"], "deny")
        if "Device not signed in" not in cancelled.text:
            fail(f"Cancel did not say so: {cancelled.status_code} {cancelled.text[:300]}")
        thread.join(60)
        if (holder.get("result") or {}).get("error") != "access_denied":
            fail(f"MSAL after Cancel: {holder.get('result')}")
        print("  Cancel: MSAL's poll got access_denied")

        flow = app.initiate_device_flow(scopes=[])
        typo = Person(issuer, browser_port)
        form = typo.get(flow["verification_uri"])
        again = typo.post(Person.action(form), {"csrf_token": Person.field(form, "csrf_token"), "user_code": "BCDF-GHJK"})
        if again.status_code != 400 or 'role="alert"' not in again.text:
            fail(f"a wrong code was not refused on the form: {again.status_code} {again.text[:300]}")
        print("  a mistyped code: the form again with the error (400)")
        print("device-grant: OK")
    finally:
        for instance in instances:
            instance.stop()


if __name__ == "__main__":
    main()
