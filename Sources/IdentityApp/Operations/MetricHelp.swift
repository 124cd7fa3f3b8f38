/// The `# HELP` text of every metric family the broker exposes at `/metrics`, in one place so that
/// an operator reading the exposition (or a dashboard's tooltip) learns what each series counts.
/// A family missing here has no HELP line, which `MetricsTests` refuses.
enum MetricHelp {
    static func text(_ name: String) -> String { texts[name] ?? "" }

    static let texts: [String: String] = [
        "idconnect_http_requests_total": "HTTP requests answered, by route template, method and status",
        "idconnect_http_request_duration_seconds": "Time from reading a request to answering it, by route template",
        "idconnect_http_requests_in_flight": "HTTP requests read and not yet answered, this scrape included",
        "idconnect_logins_total": "Sign-in attempts by connector type and outcome (success, rejected, unavailable, error, throttled, challenge)",
        "idconnect_upstream_refreshes_total": "Refreshes of upstream tokens by connector type and outcome (refreshed, ended, unavailable)",
        "idconnect_vault_operations_total": "Vault operations on upstream tokens and secrets (seal, open, reseal)",
        "idconnect_audit_events_total": "Audit events recorded, by event name",
        "idconnect_security_events_total": "Security events (refresh token reuse, code replay, QR sign-ins refused as unauthorized, passkey counter anomalies)",
        "idconnect_saml_metadata_refreshes_total": "Fetches of SAML IdP metadata by auth service and outcome (success, failure, shared)",
        "idconnect_build_info": "Always 1; the labels name the running build's version and commit",
        "process_cpu_seconds_total": "User and system CPU time the broker process has used, in seconds",
        "process_resident_memory_bytes": "Resident memory of the broker process (RSS), in bytes",
        "process_virtual_memory_bytes": "Virtual memory of the broker process, in bytes",
        "process_open_fds": "File descriptors the broker process has open (sockets, database files, logs)",
        "process_max_fds": "The most file descriptors the broker process may open (its soft limit)",
        "process_threads": "Threads of the broker process",
        "process_start_time_seconds": "When the broker process started, in seconds since the Unix epoch",
    ]
}
