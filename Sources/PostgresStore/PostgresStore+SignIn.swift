import Foundation
import IdentityCore
import StoreContracts
import PostgresNIO

/// The writes that finish a sign-in, each one transaction: a code for the client
/// (`completeSignIn`) or tokens at once (`startSession`, the password grant).
extension PostgresStore {
    /// One statement, so one round trip: the pending authorization is deleted, and only if it was
    /// there (or none was named) are the session and the code inserted. The throttle's reset is a
    /// data-modifying `WITH` of its own, which PostgreSQL runs whatever the rest finds (without a
    /// reset it matches no row).
    public func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?,
                               throttleReset: ThrottleReset?) async throws -> Bool {
        let codeData = try code.storedJSON()
        let consume = pendingIdHash != nil
        return try await rows("""
            WITH throttle_reset AS (
                \(throttleUpdateFor: throttleReset) RETURNING 1
            ), consumed AS (
                DELETE FROM pending_authorizations WHERE \(consume) AND id_hash = \(pendingIdHash ?? "") RETURNING 1
            ), new_session AS (
                INSERT INTO sessions (\(unescaped: Self.sessionColumns))
                SELECT \(valuesOf: session)
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
        _ = try await rows("""
            WITH throttle_reset AS (
                \(throttleUpdateFor: throttleReset) RETURNING 1
            ), new_session AS (
                INSERT INTO sessions (\(unescaped: Self.sessionColumns)) VALUES (\(valuesOf: started))
                RETURNING 1
            )
            INSERT INTO token_families (id, session_id, client_id, scope, nonce, created_at, revoked_at,
                refresh_hash, refresh_expires_at, previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims,
                dpop_jkt)
            VALUES (\(family.id), \(family.sessionId), \(family.clientId), \(family.scope), \(family.nonce),
                \(family.createdAt.pg), \(family.revokedAt?.pg), \(family.refreshHash), \(family.refreshExpiresAt?.pg),
                \(family.previousRefreshHash), \(family.rotatedAt?.pg), \(family.graceResponse), \(family.clientAuthenticated),
                \(TokenFamily.encode(family.resources)), \(ClaimsRequest.encode(family.claims)), \(family.dpopJkt))
            """)
    }
}
