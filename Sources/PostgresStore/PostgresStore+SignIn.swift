import Foundation
import IdentityCore
import StoreContracts
import PostgresNIO

/// The writes that finish a sign-in, each one transaction: a code for the client
/// (`completeSignIn`) or tokens at once (`startSession`, the password grant).
extension PostgresStore {
    /// One statement, so one round trip: the pending authorization is deleted, and only if it was
    /// there (or none was named) are the session and the code inserted. The throttle's reset is a
    /// data-modifying `WITH` of its own, which PostgreSQL runs whatever the rest finds (stored
    /// keys are hashes, never empty: without a reset it matches no row).
    public func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?,
                               throttleReset: ThrottleReset?) async throws -> Bool {
        let attributes = session.storedAttributes
        let codeData = try code.storedJSON()
        let consume = pendingIdHash != nil
        let reset = throttleReset?.reset ?? "", release = throttleReset?.release ?? ""
        return try await rows("""
            WITH throttle_reset AS (
                UPDATE throttle SET count = CASE WHEN key_hash = \(reset) THEN 0 ELSE GREATEST(count - 1, 0) END
                WHERE key_hash IN (\(reset), \(release)) RETURNING 1
            ), consumed AS (
                DELETE FROM pending_authorizations WHERE \(consume) AND id_hash = \(pendingIdHash ?? "") RETURNING 1
            ), new_session AS (
                INSERT INTO sessions (id, subject, user_id, app_key, auth_service_id, attributes, upstream,
                    upstream_expires_at, auth_time, created_at, expires_at, revoked_at, version, max_expires_at,
                    user_agent, client_address, last_used_at, amr, upstream_session)
                SELECT \(session.id), \(session.subject), \(session.userId), \(session.appKey), \(session.authServiceId),
                    \(attributes), \(session.sealedUpstream), \(session.upstreamExpiresAt?.pg), \(session.authTime.pg),
                    \(session.createdAt.pg), \(session.expiresAt.pg), \(session.revokedAt?.pg), \(session.version),
                    \(session.maxExpiresAt?.pg), \(session.userAgent), \(session.clientAddress), \(session.lastUsedAt?.pg),
                    \(LoginSession.amrColumn(session.amr)), \(session.upstreamSessionKey)
                WHERE NOT \(consume) OR EXISTS (SELECT 1 FROM consumed)
                RETURNING 1
            )
            INSERT INTO authorization_codes (code_hash, data, expires_at)
            SELECT \(code.hash), \(codeData), \(code.expiresAt.pg) WHERE EXISTS (SELECT 1 FROM new_session)
            RETURNING 1
            """).count == 1
    }

    /// One statement, so one round trip and one commit: the throttle's reset, the session (already
    /// extended for the family's refresh token) and the family, as data-modifying `WITH`s.
    public func startSession(_ session: LoginSession, family: TokenFamily, throttleReset: ThrottleReset?) async throws {
        let started = session.extended(for: family)
        let attributes = started.storedAttributes
        let reset = throttleReset?.reset ?? "", release = throttleReset?.release ?? ""
        _ = try await rows("""
            WITH throttle_reset AS (
                UPDATE throttle SET count = CASE WHEN key_hash = \(reset) THEN 0 ELSE GREATEST(count - 1, 0) END
                WHERE key_hash IN (\(reset), \(release)) RETURNING 1
            ), new_session AS (
                INSERT INTO sessions (id, subject, user_id, app_key, auth_service_id, attributes, upstream,
                    upstream_expires_at, auth_time, created_at, expires_at, revoked_at, version, max_expires_at,
                    user_agent, client_address, last_used_at, amr, upstream_session)
                VALUES (\(started.id), \(started.subject), \(started.userId), \(started.appKey), \(started.authServiceId),
                    \(attributes), \(started.sealedUpstream), \(started.upstreamExpiresAt?.pg), \(started.authTime.pg),
                    \(started.createdAt.pg), \(started.expiresAt.pg), \(started.revokedAt?.pg), \(started.version),
                    \(started.maxExpiresAt?.pg), \(started.userAgent), \(started.clientAddress), \(started.lastUsedAt?.pg),
                    \(LoginSession.amrColumn(started.amr)), \(started.upstreamSessionKey))
                RETURNING 1
            )
            INSERT INTO token_families (id, session_id, client_id, scope, nonce, created_at, revoked_at,
                refresh_hash, refresh_expires_at, previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims)
            VALUES (\(family.id), \(family.sessionId), \(family.clientId), \(family.scope), \(family.nonce),
                \(family.createdAt.pg), \(family.revokedAt?.pg), \(family.refreshHash), \(family.refreshExpiresAt?.pg),
                \(family.previousRefreshHash), \(family.rotatedAt?.pg), \(family.graceResponse), \(family.clientAuthenticated),
                \(TokenFamily.encode(family.resources)), \(ClaimsRequest.encode(family.claims)))
            """)
    }
}
