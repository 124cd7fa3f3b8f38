"""Formats a benchmark run as Markdown: the broker's table, the baselines and ratios, and the
side-by-side table with Glewlwyd."""


def table(results, extras, configuration, options):
    lines = [f"Identity Connect benchmark ({configuration} build, wrk -t{options.threads} -c{options.connections}, "
             "loopback; wrk shares the machine's cores with the broker)", "",
             "| scenario | req/s | p50 ms | p99 ms | requests | errors | broker CPU µs/req |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        lines.append(row(result))
    for rows in extras["sessions"].values():
        for stored in rows:
            lines.append(row(_Result(stored)))
    lines.append("")
    signing = extras["signing"]["signs_per_second"]
    threads = extras['signing']['threads']
    boring = signing.get("RS256 (swift-crypto)")
    lines.append(f"Signing limit ({threads} threads): RS256 (RSA-2048) {signing['RS256']:,}/s "
                 f"({extras['signing'].get('rs256_library', 'swift-crypto')}"
                 + (f"; swift-crypto alone {boring:,}/s" if boring else "") + f"), ES256 {signing['ES256']:,}/s"
                 + (" (the mean of a measurement right before the code-exchange row and one right after the refresh row: RS256 "
                    + " and ".join(f"{run['RS256']:,}" for run in extras["signing"]["runs"]) + "/s)"
                    if extras["signing"].get("runs") else ""))
    saml = extras.get("saml")
    if saml:
        lines.append(f"SAML Responses validated in full (parse, RSA-2048 signature, conditions): {saml['per_second']:,}/s "
                     f"on {saml['threads']} threads, {saml['one_thread']:,}/s on one")
    executors = extras.get("executors")
    if executors:
        lines.append("A chain of 40 async calls under IDCONNECT_EXECUTOR: " + ", ".join(
            f"{name} {row['ns_per_chain'] / 1000:.1f} µs"
            + (f" ({row['queue_trips_per_chain']:.0f} queue trips, "
               f"{row.get('queue_trips_per_chain_under_load', row['queue_trips_per_chain']):.0f} with requests in flight)"
               if row.get("queue_trips_per_chain") is not None else "")
            for name, row in executors.items()))
    lines.append(f"Broker peak RSS: {extras['peak_rss_mb']} MB")
    by_name = {result.name: result for result in results}
    floors = [result for name, result in by_name.items() if name.startswith("static route")]
    if floors:
        floor_rate = sum(result.requests_per_second for result in floors) / len(floors)
        floor_cpus = [result.cpu_us.get("broker") for result in floors if result.cpu_us.get("broker")]
        base = sum(floor_cpus) / len(floor_cpus) if floor_cpus else None
        if len(floors) > 1:
            lines.append("HTTP floor: the mean of a measurement before the validate rows and one after the JWKS row: "
                         + " and ".join(f"{result.requests_per_second:,.0f}" for result in floors)
                         + f" req/s, {floor_rate:,.0f} on average")
        for name in ("validate (JWT)", "validate (opaque)", "introspect (JWT)", "introspect (opaque)",
                     "discovery (openid-configuration)", "JWKS"):
            if name in by_name:
                line = f"{name} / HTTP floor: {by_name[name].requests_per_second / floor_rate:.0%}"
                ours = by_name[name].cpu_us.get("broker")
                if ours and base:
                    line += f" (by the broker's CPU per request: {base / ours:.0%}, {base:.0f} against {ours:.0f} µs)"
                lines.append(line)
    for name, algorithm in (("code exchange", "RS256"), ("refresh (rotating)", "RS256"),
                            ("code exchange (ES256)", "ES256"), ("refresh (rotating, ES256)", "ES256")):
        if name in by_name:
            line = (f"{name} / {algorithm} signing limit: {by_name[name].requests_per_second / signing[algorithm]:.0%} "
                    "(each signs one access token)")
            cpu = by_name[name].cpu_us.get("broker")
            if cpu:
                signature = threads * 1e6 / signing[algorithm]
                line += f"; the signature is {signature / cpu:.0%} of the broker's CPU per request ({signature:.0f} of {cpu:.0f} µs)"
            lines.append(line)
    for connections, label in ((options.connections, "req/s"), (1, "p50")):
        direct = by_name.get(f"backend called directly (AuthLink POST /login), {connections} conn.")
        gateway = by_name.get(f"data-link gateway (→ AuthLink POST /login), {connections} conn.")
        if direct and gateway and label == "req/s":
            line = (f"gateway / backend called directly: {gateway.requests_per_second / direct.requests_per_second:.0%} "
                    f"(the gateway, the backend and wrk share the 2 cores)")
            own, through, broker_cpu = direct.cpu_us.get("authlink"), gateway.cpu_us.get("authlink"), gateway.cpu_us.get("broker")
            if own and through and broker_cpu:
                line += (f"; CPU per call: the backend alone {own:.0f} µs, through the gateway {through:.0f} µs "
                         f"plus the broker's {broker_cpu:.0f} µs")
            slept_alone = getattr(direct, "sleeps", {}).get("authlink")
            slept_behind = getattr(gateway, "sleeps", {}).get("authlink")
            if slept_alone is not None and slept_behind is not None:
                line += (f"; the backend's threads went to sleep {slept_alone:.2f} times per call alone, "
                         f"{slept_behind:.2f} behind the gateway")
            lines.append(line)
        elif direct and gateway:
            lines.append(f"the gateway adds {gateway.p50_ms - direct.p50_ms:.2f} ms at p50 to a call (one at a time)")
    stream = extras.get("streaming")
    if stream:
        lines.append(f"gateway streaming: {stream['megabytes']} MiB down at {stream['gateway_mb_per_s']:,} MiB/s "
                     f"(direct {stream['direct_mb_per_s']:,} MiB/s), RSS {stream['rss_before_mb']} → at most "
                     f"{stream['rss_highest_mb']} MB; {stream['upload_megabytes']} MiB up at {stream['upload_mb_per_s']:,} MiB/s, "
                     f"RSS at most {stream['upload_rss_highest_mb']} MB")
    second = extras.get("mfa")
    if second:
        lines.append(f"second factor (TOTP, automated grant, one at a time, {second['signins_with']} sign-ins): p50 "
                     f"{second['p50_with_ms']:.2f} ms vs {second['p50_without_ms']:.2f} ms without "
                     f"(the second step adds {second['overhead_p50_ms']:.2f} ms)")
    raw = extras.get("ldap_raw")
    ldap_login = _first(by_name, "login via LDAP (automated grant), 32") or _first(by_name, "login via LDAP")
    if raw:
        own = raw["login_p50_ms_one_at_a_time"]
        lines.append(f"slapd called directly (connector floor): {raw['binds_per_second']:,.0f} binds/s, "
                     f"{raw['logins_per_second']:,.0f} search+groups+bind/s, one at a time p50 {own:.2f} ms, "
                     f"p99 {raw['login_p99_ms_one_at_a_time']:.2f} ms")
        if ldap_login:
            lines.append(f"LDAP logins through the broker / raw binds: {ldap_login.requests_per_second / raw['binds_per_second']:.3f}; "
                         f"/ raw search+groups+bind: {ldap_login.requests_per_second / raw['logins_per_second']:.3f}")
        ldap_single = _first(by_name, "login via LDAP (automated grant), 1 conn.")
        if ldap_single:
            lines.append(f"login via LDAP: p50 {ldap_single.p50_ms:.2f} ms vs the directory's own work p50 "
                         f"{own:.2f} ms (broker adds {ldap_single.p50_ms - own:.2f} ms)")
    for label in ("AuthLink",):
        login = _first(by_name, f"login via {label} (automated grant), 1 conn.")
        direct = _first(by_name, "AuthLink called directly (connector floor), 1 conn.")
        if login and direct:
            lines.append(f"login via {label}: p50 {login.p50_ms:.2f} ms vs the AuthLink alone {direct.p50_ms:.2f} ms "
                         f"(broker adds {login.p50_ms - direct.p50_ms:.2f} ms)")
    small, large = extras["sessions"]["small"], extras["sessions"]["large"]
    for index, label in ((0, "one session"), (1, "many sessions in turn")):
        if small[index]["requests_per_second"]:
            lines.append(f"validate with the large store / with 10k sessions ({label}): "
                         f"{large[index]['requests_per_second'] / small[index]['requests_per_second']:.0%}")
    if "glewlwyd" in extras:
        lines += ["", *peer_table(extras["glewlwyd"], options)]
    return "\n".join(lines)


def peer_table(peer, options):
    """The side-by-side rows: req/s of each server, ours / glewlwyd, both p50s."""
    lines = [f"Side by side with Glewlwyd (same run, same wrk settings: -t{options.threads} -c{options.connections}; "
             f"glewlwyd {peer['version'] or '?'}, SQLite WAL {'on tmpfs' if peer['database_on_tmpfs'] else 'on disk'}; "
             f"password hashes PBKDF2-SHA256 with {peer['pbkdf2_iterations']:,} rounds on both sides)", "",
             "| load | req/s ours | req/s glewlwyd | ours / glewlwyd | p50 ms ours | p50 ms glewlwyd | CPU µs/req ours | CPU µs/req glewlwyd |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    behind, failures = [], []
    for row in peer["rows"]:
        ours, theirs = row["ours"], row["glewlwyd"]
        if theirs["errors"]:
            failures.append(f"{row['load']} {theirs['errors']:,} of {theirs['requests']:,}")
        lines.append(f"| {row['load']} | {ours['requests_per_second']:,.0f} | {theirs['requests_per_second']:,.0f} | "
                     f"{row['ratio']:.2f} | {ours['p50_ms']:.2f} | {theirs['p50_ms']:.2f} | "
                     f"{_cpu(ours, 'broker')} | {_cpu(theirs, 'glewlwyd')} |")
        if row["ratio"] < 1:
            behind.append(f"{row['load']} ({row['ratio']:.2f})")
    if failures:
        lines += ["", "Glewlwyd's failed answers (counted in its req/s): " + ", ".join(failures)]
    if behind:
        lines += ["", "Glewlwyd ahead on: " + ", ".join(behind)]
    return lines


def rows_only(results, configuration, options):
    """The table of a run with `--only`: its rows, without the baselines and ratios of a full run."""
    lines = [f"Identity Connect benchmark, {options.only} rows only ({configuration} build, wrk -t{options.threads} "
             f"-c{options.connections}, loopback)", "",
             "| scenario | req/s | p50 ms | p99 ms | requests | errors | broker CPU µs/req |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    return "\n".join(lines + [row(result) for result in results])


def row(result):
    return (f"| {result.name} | {result.requests_per_second:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} | "
            f"{result.requests:,} | {result.errors} | {_cpu(vars(result), 'broker')} |")


def _cpu(values, label):
    """A row's CPU µs per request of the process `label`, or a dash (not watched)."""
    cpu = (values.get("cpu_us") or {}).get(label)
    return f"{cpu:,.0f}" if cpu is not None else "–"


def _first(by_name, prefix):
    for name, result in by_name.items():
        if name.startswith(prefix):
            return result
    return None


class _Result:
    def __init__(self, values):
        self.__dict__.update(values)
