import Foundation
import GRDB

extension SQLiteStore {
    /// The schema, one migration per release that changed it; applied in order at open.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE pending_authorizations (
                    id_hash TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX pending_authorizations_expiry ON pending_authorizations(expires_at);
                CREATE TABLE authorization_codes (
                    code_hash TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires_at REAL NOT NULL,
                    used_at REAL, family_id TEXT);
                CREATE INDEX authorization_codes_expiry ON authorization_codes(expires_at);
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, user_id TEXT NOT NULL,
                    app_key TEXT NOT NULL, auth_service_id TEXT NOT NULL, attributes BLOB NOT NULL,
                    upstream BLOB, upstream_expires_at REAL, auth_time REAL NOT NULL, created_at REAL NOT NULL,
                    expires_at REAL NOT NULL, revoked_at REAL, version INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX sessions_expiry ON sessions(expires_at);
                CREATE TABLE token_families (
                    id TEXT PRIMARY KEY NOT NULL, session_id TEXT NOT NULL, client_id TEXT NOT NULL,
                    scope TEXT NOT NULL, nonce TEXT, created_at REAL NOT NULL, revoked_at REAL,
                    refresh_hash TEXT UNIQUE, refresh_expires_at REAL, previous_refresh_hash TEXT,
                    rotated_at REAL, grace_response BLOB);
                CREATE INDEX token_families_session ON token_families(session_id);
                CREATE INDEX token_families_previous ON token_families(previous_refresh_hash);
                CREATE TABLE opaque_access_tokens (
                    token_hash TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX opaque_access_tokens_expiry ON opaque_access_tokens(expires_at);
                CREATE TABLE revoked_access_tokens (jti TEXT PRIMARY KEY NOT NULL, expires_at REAL NOT NULL);
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY NOT NULL, algorithm TEXT NOT NULL, private_key BLOB NOT NULL,
                    created_at REAL NOT NULL, retired_at REAL, remove_after REAL);
                """)
        }
        migrator.registerMigration("v2-history-sso") { db in
            try db.execute(sql: """
                CREATE TABLE retired_refresh_tokens (
                    token_hash TEXT PRIMARY KEY NOT NULL, family_id TEXT NOT NULL);
                CREATE INDEX retired_refresh_tokens_family ON retired_refresh_tokens(family_id);
                CREATE TABLE sso_sessions (
                    id_hash TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX sso_sessions_expiry ON sso_sessions(expires_at);
                """)
        }
        migrator.registerMigration("v3-refresh-leases") { db in
            try db.execute(sql: """
                CREATE TABLE refresh_leases (
                    session_id TEXT PRIMARY KEY NOT NULL, holder TEXT NOT NULL, expires_at REAL NOT NULL);
                """)
        }
        migrator.registerMigration("v4-registered-clients") { db in
            try db.execute(sql: """
                CREATE TABLE registered_clients (
                    client_id TEXT PRIMARY KEY NOT NULL, app_key TEXT NOT NULL, data BLOB NOT NULL,
                    bound_subject TEXT, created_at REAL NOT NULL);
                CREATE INDEX registered_clients_app_key ON registered_clients(app_key, created_at);
                CREATE INDEX registered_clients_unbound ON registered_clients(created_at) WHERE bound_subject IS NULL;
                """)
        }
        migrator.registerMigration("v5-one-time-grants") { db in
            try db.execute(sql: """
                CREATE TABLE one_time_grants (hash TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX one_time_grants_expiry ON one_time_grants(expires_at);
                """)
        }
        migrator.registerMigration("v6-families-by-client") { db in
            // Deleting an app instance revokes its families wherever they are.
            try db.execute(sql: "CREATE INDEX token_families_client ON token_families(client_id)")
        }
        migrator.registerMigration("v7-security") { db in
            // Sessions get an absolute end (sessionMaxAge, SAML SessionNotOnOrAfter); families
            // remember whether the client authenticated; throttling moves into storage so that it
            // is atomic and shared by every instance.
            try db.execute(sql: """
                ALTER TABLE sessions ADD COLUMN max_expires_at REAL;
                ALTER TABLE token_families ADD COLUMN client_authenticated INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE throttle (
                    key_hash TEXT PRIMARY KEY NOT NULL, window_start REAL NOT NULL, count INTEGER NOT NULL,
                    last_attempt REAL NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX throttle_expiry ON throttle(expires_at);
                UPDATE sessions SET max_expires_at = auth_time + 2592000 WHERE max_expires_at IS NULL;
                """)
        }
        migrator.registerMigration("v8-qr-logins") { db in
            // QR-code sign-ins: the browser showing the code and the app confirming it.
            try db.execute(sql: """
                CREATE TABLE qr_logins (
                    code_hash TEXT PRIMARY KEY NOT NULL, pending_id_hash TEXT NOT NULL, browser_hash TEXT NOT NULL,
                    client_id TEXT NOT NULL, app_key TEXT NOT NULL, auth_service_id TEXT NOT NULL,
                    user_agent TEXT NOT NULL, accept_language TEXT, client_address TEXT,
                    state TEXT NOT NULL, session_id TEXT, subject TEXT, refusal TEXT,
                    created_at REAL NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX qr_logins_expiry ON qr_logins(expires_at);
                """)
        }
        migrator.registerMigration("v9-resources-claims") { db in
            // RFC 8707: the APIs a token family was narrowed to; OIDC: the claims it asked for.
            try db.execute(sql: """
                ALTER TABLE token_families ADD COLUMN resources TEXT;
                ALTER TABLE token_families ADD COLUMN claims TEXT;
                """)
        }
        migrator.registerMigration("v10-account") { db in
            // The account page: which browser signed in, from where, last use.
            try db.execute(sql: """
                ALTER TABLE sessions ADD COLUMN user_agent TEXT;
                ALTER TABLE sessions ADD COLUMN client_address TEXT;
                ALTER TABLE sessions ADD COLUMN last_used_at REAL;
                CREATE INDEX sessions_subject ON sessions(subject);
                CREATE INDEX registered_clients_subject ON registered_clients(bound_subject);
                """)
        }
        migrator.registerMigration("v11-mfa") { db in
            // Second factors (docs/mfa.md) and what each session's sign-in proved (amr).
            try db.execute(sql: """
                CREATE TABLE mfa_totp (
                    subject TEXT PRIMARY KEY NOT NULL, namespace TEXT NOT NULL, auth_service_id TEXT NOT NULL,
                    user_id TEXT NOT NULL, secret BLOB NOT NULL, last_step INTEGER NOT NULL,
                    created_at REAL NOT NULL, last_used_at REAL);
                CREATE INDEX mfa_totp_user ON mfa_totp(auth_service_id, user_id);
                CREATE TABLE mfa_passkeys (
                    credential_id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, namespace TEXT NOT NULL,
                    auth_service_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, public_key BLOB NOT NULL,
                    sign_count INTEGER NOT NULL, transports TEXT NOT NULL, created_at REAL NOT NULL, last_used_at REAL);
                CREATE INDEX mfa_passkeys_subject ON mfa_passkeys(subject);
                CREATE INDEX mfa_passkeys_user ON mfa_passkeys(auth_service_id, user_id);
                CREATE TABLE mfa_recovery_codes (
                    subject TEXT NOT NULL, code_hash TEXT NOT NULL, created_at REAL NOT NULL,
                    PRIMARY KEY (subject, code_hash));
                ALTER TABLE sessions ADD COLUMN amr TEXT;
                """)
        }
        migrator.registerMigration("v12-saml-lifecycle") { db in
            // SAML single logout: a session remembers the IdP's SessionIndex (hashed), and the
            // IdP's LogoutRequest finds a user's sessions by subject. IdP metadata: the last good
            // copy of each fetched document, shared by every instance and kept across restarts.
            try db.execute(sql: """
                ALTER TABLE sessions ADD COLUMN upstream_session TEXT;
                CREATE TABLE connector_documents (
                    key TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, fetched_at REAL NOT NULL);
                """)
        }
        migrator.registerMigration("v13-partial-previous-index") { db in
            // Only a rotated family has a previous refresh token, and only rotated families are
            // looked up by it: new families (every code exchange, password grant and sign-in) no
            // longer write an index entry for their NULL, one page fewer per commit. (PostgreSQL
            // keeps its full index: rebuilding it there would hold writes to token_families
            // while other instances serve, during a rolling deploy.)
            try db.execute(sql: """
                DROP INDEX token_families_previous;
                CREATE INDEX token_families_previous ON token_families(previous_refresh_hash)
                    WHERE previous_refresh_hash IS NOT NULL;
                """)
        }
        migrator.registerMigration("v14-web-origins") { db in
            // CORS: the browser origins registered app instances list (`web_origins`), looked up
            // by origin for preflights, which name no client. The instance keeps them in its data.
            try db.execute(sql: """
                CREATE TABLE registered_client_origins (
                    origin TEXT NOT NULL,
                    client_id TEXT NOT NULL REFERENCES registered_clients(client_id) ON DELETE CASCADE,
                    PRIMARY KEY (origin, client_id)) WITHOUT ROWID;
                CREATE INDEX registered_client_origins_client ON registered_client_origins(client_id);
                """)
        }
        migrator.registerMigration("v15-device-authorizations") { db in
            // The device authorization grant (RFC 8628): a device polls while its user signs in
            // elsewhere. Found by the device code's hash (polls) and the user code's (the page).
            try db.execute(sql: """
                CREATE TABLE device_authorizations (
                    device_code_hash TEXT PRIMARY KEY NOT NULL, user_code_hash TEXT NOT NULL UNIQUE,
                    client_id TEXT NOT NULL, client_authenticated INTEGER NOT NULL, scope TEXT NOT NULL, resources TEXT,
                    state TEXT NOT NULL, session_id TEXT, subject TEXT, poll_interval INTEGER NOT NULL, polled_at REAL,
                    created_at REAL NOT NULL, expires_at REAL NOT NULL);
                CREATE INDEX device_authorizations_expiry ON device_authorizations(expires_at);
                """)
        }
        migrator.registerMigration("v16-dpop") { db in
            // DPoP (RFC 9449): the key a token family is bound to.
            try db.execute(sql: "ALTER TABLE token_families ADD COLUMN dpop_jkt TEXT")
        }
        migrator.registerMigration("v17-upstream-session-index") { db in
            // An OpenID provider's back-channel logout may name only its session (`sid`): the
            // sessions it started are found by that key alone. Partial: most sessions have none.
            try db.execute(sql: """
                CREATE INDEX sessions_upstream_session ON sessions(upstream_session) WHERE upstream_session IS NOT NULL
                """)
        }
        migrator.registerMigration("v18-logout-notices") { db in
            // Back-channel logout to relying parties: every session that ends leaves a notice, in
            // the same transaction, whichever statement ended it (the command-line tools too).
            try db.execute(sql: """
                CREATE TABLE logout_notices (
                    session_id TEXT PRIMARY KEY NOT NULL, subject TEXT NOT NULL, ended_at REAL NOT NULL,
                    due_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, holder TEXT, claimed_until REAL,
                    delivered TEXT NOT NULL DEFAULT '');
                CREATE INDEX logout_notices_due ON logout_notices(due_at);
                CREATE TRIGGER sessions_logout_notice AFTER UPDATE OF revoked_at ON sessions
                WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
                BEGIN
                    INSERT OR IGNORE INTO logout_notices (session_id, subject, ended_at, due_at)
                    VALUES (NEW.id, NEW.subject, NEW.revoked_at, NEW.revoked_at);
                END;
                """)
        }
        migrator.registerMigration("v19-consents") { db in
            // Consent (docs/consent.md): what each user allowed each app, one row per (subject, client).
            try db.execute(sql: """
                CREATE TABLE consents (
                    subject TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
                    granted_at REAL NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (subject, client_id));
                CREATE TABLE permissions (
                    id TEXT PRIMARY KEY NOT NULL, uri_hash TEXT NOT NULL UNIQUE, client_id TEXT NOT NULL,
                    external_reference TEXT, subject TEXT, status TEXT NOT NULL, expires_at REAL NOT NULL, data BLOB NOT NULL);
                CREATE UNIQUE INDEX permissions_reference ON permissions(client_id, external_reference) WHERE external_reference IS NOT NULL;
                CREATE INDEX permissions_subject ON permissions(subject, status) WHERE subject IS NOT NULL;
                """)
        }
        return migrator
    }
}
