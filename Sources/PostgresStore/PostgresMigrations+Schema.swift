import Foundation

/// The schema's versions, each applied once in order by ``PostgresMigrations`` (the SQLite
/// backend's migrations make the same tables).
extension PostgresMigrations {
    /// Every migration, oldest first: a version name and its statements.
    static let migrations: [(version: String, statements: [String])] = [
        ("v1", [
            """
            CREATE TABLE pending_authorizations (
                id_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX pending_authorizations_expiry ON pending_authorizations (expires_at)",
            """
            CREATE TABLE authorization_codes (
                code_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL,
                used_at DOUBLE PRECISION, family_id TEXT)
            """,
            "CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at)",
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY, subject TEXT NOT NULL, user_id TEXT NOT NULL, app_key TEXT NOT NULL,
                auth_service_id TEXT NOT NULL, attributes BYTEA NOT NULL, upstream BYTEA,
                upstream_expires_at DOUBLE PRECISION, auth_time DOUBLE PRECISION NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL,
                revoked_at DOUBLE PRECISION, version BIGINT NOT NULL DEFAULT 0)
            """,
            "CREATE INDEX sessions_expiry ON sessions (expires_at)",
            """
            CREATE TABLE token_families (
                id TEXT PRIMARY KEY, session_id TEXT NOT NULL, client_id TEXT NOT NULL, scope TEXT NOT NULL,
                nonce TEXT, created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION,
                refresh_hash TEXT UNIQUE, refresh_expires_at DOUBLE PRECISION, previous_refresh_hash TEXT,
                rotated_at DOUBLE PRECISION, grace_response BYTEA)
            """,
            "CREATE INDEX token_families_session ON token_families (session_id)",
            "CREATE INDEX token_families_previous ON token_families (previous_refresh_hash)",
            "CREATE TABLE retired_refresh_tokens (token_hash TEXT PRIMARY KEY, family_id TEXT NOT NULL)",
            "CREATE INDEX retired_refresh_tokens_family ON retired_refresh_tokens (family_id)",
            """
            CREATE TABLE opaque_access_tokens (
                token_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX opaque_access_tokens_expiry ON opaque_access_tokens (expires_at)",
            "CREATE TABLE revoked_access_tokens (jti TEXT PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL)",
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY, algorithm TEXT NOT NULL, private_key BYTEA NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, retired_at DOUBLE PRECISION, remove_after DOUBLE PRECISION)
            """,
            "CREATE TABLE sso_sessions (id_hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX sso_sessions_expiry ON sso_sessions (expires_at)",
            """
            CREATE TABLE refresh_leases (
                session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
        ]),
        ("v2-registered-clients", [
            """
            CREATE TABLE registered_clients (
                client_id TEXT PRIMARY KEY, app_key TEXT NOT NULL, data BYTEA NOT NULL,
                bound_subject TEXT, created_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX registered_clients_app_key ON registered_clients (app_key, created_at)",
            "CREATE INDEX registered_clients_unbound ON registered_clients (created_at) WHERE bound_subject IS NULL",
        ]),
        ("v3-one-time-grants", [
            "CREATE TABLE one_time_grants (hash TEXT PRIMARY KEY, data BYTEA NOT NULL, expires_at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX one_time_grants_expiry ON one_time_grants (expires_at)",
        ]),
        // Deleting an app instance revokes its families wherever they are.
        ("v4-families-by-client", ["CREATE INDEX token_families_client ON token_families (client_id)"]),
        // Sessions get an absolute end (sessionMaxAge, SAML SessionNotOnOrAfter); families remember
        // whether the client authenticated; throttling is shared by every instance.
        ("v5-security", [
            "ALTER TABLE sessions ADD COLUMN max_expires_at DOUBLE PRECISION",
            "ALTER TABLE token_families ADD COLUMN client_authenticated BOOLEAN NOT NULL DEFAULT FALSE",
            """
            CREATE TABLE throttle (
                key_hash TEXT PRIMARY KEY, window_start DOUBLE PRECISION NOT NULL, count INTEGER NOT NULL,
                last_attempt DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX throttle_expiry ON throttle (expires_at)",
            // Sessions from before get the default sessionMaxAge (30 days after their sign-in).
            "UPDATE sessions SET max_expires_at = auth_time + 2592000 WHERE max_expires_at IS NULL",
        ]),
        // QR-code sign-ins: the browser showing the code and the app confirming it.
        ("v6-qr-logins", [
            """
            CREATE TABLE qr_logins (
                code_hash TEXT PRIMARY KEY, pending_id_hash TEXT NOT NULL, browser_hash TEXT NOT NULL,
                client_id TEXT NOT NULL, app_key TEXT NOT NULL, auth_service_id TEXT NOT NULL,
                user_agent TEXT NOT NULL, accept_language TEXT, client_address TEXT,
                state TEXT NOT NULL, session_id TEXT, subject TEXT, refusal TEXT,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX qr_logins_expiry ON qr_logins (expires_at)",
        ]),
        // RFC 8707: the APIs a token family was narrowed to; OIDC: the claims it asked for.
        ("v7-resources-claims", ["ALTER TABLE token_families ADD COLUMN resources TEXT",
                                 "ALTER TABLE token_families ADD COLUMN claims TEXT"]),
        // The account page: which browser signed in, from where, last use.
        ("v8-account", [
            "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
            "ALTER TABLE sessions ADD COLUMN client_address TEXT",
            "ALTER TABLE sessions ADD COLUMN last_used_at DOUBLE PRECISION",
            "CREATE INDEX sessions_subject ON sessions (subject)",
            "CREATE INDEX registered_clients_subject ON registered_clients (bound_subject)",
        ]),
        // Second factors (docs/mfa.md) and what each session's sign-in proved (amr).
        ("v9-mfa", [
            """
            CREATE TABLE mfa_totp (
                subject TEXT PRIMARY KEY, namespace TEXT NOT NULL, auth_service_id TEXT NOT NULL, user_id TEXT NOT NULL,
                secret BYTEA NOT NULL, last_step BIGINT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION)
            """,
            "CREATE INDEX mfa_totp_user ON mfa_totp (auth_service_id, user_id)",
            """
            CREATE TABLE mfa_passkeys (
                credential_id TEXT PRIMARY KEY, subject TEXT NOT NULL, namespace TEXT NOT NULL,
                auth_service_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, public_key BYTEA NOT NULL,
                sign_count BIGINT NOT NULL, transports TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION)
            """,
            "CREATE INDEX mfa_passkeys_subject ON mfa_passkeys (subject)",
            "CREATE INDEX mfa_passkeys_user ON mfa_passkeys (auth_service_id, user_id)",
            """
            CREATE TABLE mfa_recovery_codes (
                subject TEXT NOT NULL, code_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (subject, code_hash))
            """,
            "ALTER TABLE sessions ADD COLUMN amr TEXT",
        ]),
        // SAML single logout: a session remembers the IdP's SessionIndex (hashed), and the IdP's
        // LogoutRequest finds a user's sessions by subject. IdP metadata: the last good copy of
        // each fetched document, shared by every instance and kept across restarts.
        ("v10-saml-lifecycle", [
            "ALTER TABLE sessions ADD COLUMN upstream_session TEXT",
            """
            CREATE TABLE connector_documents (
                key TEXT PRIMARY KEY, data BYTEA NOT NULL, fetched_at DOUBLE PRECISION NOT NULL)
            """,
        ]),
        // CORS: the browser origins registered app instances list (`web_origins`), looked up by
        // origin for preflights, which name no client. The instance keeps them in its data.
        ("v11-web-origins", [
            """
            CREATE TABLE registered_client_origins (
                origin TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES registered_clients (client_id) ON DELETE CASCADE,
                PRIMARY KEY (origin, client_id))
            """,
            "CREATE INDEX registered_client_origins_client ON registered_client_origins (client_id)",
        ]),
        // The login throttle counts failures only: each attempt in flight holds a place, the time
        // it was reserved, until it is settled or its hold runs out (docs/security.md, rule 6).
        ("v12-throttle-reservations", [
            "ALTER TABLE throttle ADD COLUMN pending DOUBLE PRECISION[] NOT NULL DEFAULT '{}'",
        ]),
        // The device authorization grant (RFC 8628): a device polls while its user signs in
        // elsewhere. Found by the device code's hash (polls) and the user code's (the page).
        ("v13-device-authorizations", [
            """
            CREATE TABLE device_authorizations (
                device_code_hash TEXT PRIMARY KEY, user_code_hash TEXT NOT NULL UNIQUE,
                client_id TEXT NOT NULL, client_authenticated BOOLEAN NOT NULL, scope TEXT NOT NULL, resources TEXT,
                state TEXT NOT NULL, session_id TEXT, subject TEXT, poll_interval INTEGER NOT NULL, polled_at DOUBLE PRECISION,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX device_authorizations_expiry ON device_authorizations (expires_at)",
        ]),
        // DPoP (RFC 9449): the key a token family is bound to.
        ("v14-dpop", ["ALTER TABLE token_families ADD COLUMN dpop_jkt TEXT"]),
        // An OpenID provider's back-channel logout may name only its session (`sid`): the sessions
        // it started are found by that key alone. Partial: only sessions with a key are indexed.
        ("v15-upstream-session-index", [
            "CREATE INDEX sessions_upstream_session ON sessions (upstream_session) WHERE upstream_session IS NOT NULL",
        ]),
        // Back-channel logout to relying parties: every session that ends leaves a notice, in the
        // same transaction, whichever statement ended it (the command-line tools too).
        ("v16-logout-notices", [
            """
            CREATE TABLE logout_notices (
                session_id TEXT PRIMARY KEY, subject TEXT NOT NULL, ended_at DOUBLE PRECISION NOT NULL,
                due_at DOUBLE PRECISION NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, holder TEXT,
                claimed_until DOUBLE PRECISION, delivered TEXT[] NOT NULL DEFAULT '{}')
            """,
            "CREATE INDEX logout_notices_due ON logout_notices (due_at)",
            """
            CREATE FUNCTION idconnect_logout_notice() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO logout_notices (session_id, subject, ended_at, due_at)
                VALUES (NEW.id, NEW.subject, NEW.revoked_at, NEW.revoked_at) ON CONFLICT (session_id) DO NOTHING;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER sessions_logout_notice AFTER UPDATE OF revoked_at ON sessions FOR EACH ROW
            WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION idconnect_logout_notice()
            """,
        ]),
        // Consent (docs/consent.md): what each user allowed each app, one row per (subject, client).
        ("v17-consents", [
            """
            CREATE TABLE consents (
                subject TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT[] NOT NULL,
                granted_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (subject, client_id))
            """,
            """
            CREATE TABLE permissions (
                id TEXT PRIMARY KEY, uri_hash TEXT NOT NULL UNIQUE, client_id TEXT NOT NULL, external_reference TEXT,
                subject TEXT, status TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL, data BYTEA NOT NULL)
            """,
            "CREATE UNIQUE INDEX permissions_reference ON permissions (client_id, external_reference) WHERE external_reference IS NOT NULL",
            "CREATE INDEX permissions_subject ON permissions (subject, status) WHERE subject IS NOT NULL",
        ]),
    ]
}
