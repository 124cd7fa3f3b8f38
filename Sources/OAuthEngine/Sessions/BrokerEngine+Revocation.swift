import Foundation
import IdentityCore
import StoreContracts

extension BrokerEngine {
    /// `POST /oauth/revoke` (RFC 7009). A refresh token revokes its family (every token of that
    /// app's grant; for an app instance, every grant of the instance) and, when no other app
    /// still holds a live family in the same sign-in session, the session with its sealed
    /// upstream token; an access token is revoked on its own. Unknown
    /// tokens and tokens of other environments are ignored: the answer is always 200.
    public func revoke(_ parameters: OAuthParameters, basic: BasicCredentials?) async throws {
        let caller = try await authenticateClient(parameters, basic: basic, state: state)
        let token = try parameters.require("token")
        guard token.utf8.count <= 16_384 else { return }
        let now = clock.now()
        if let (family, _) = try await guarded("refresh lookup", { try await store.family(refreshHash: Secrets.hash(token)) }) {
            guard let owner = try await resolveClient(family.clientId, state: state), owner.appKey == caller.client.appKey else { return }
            if owner.instance != nil {
                // An app instance is one device: revoking its refresh token signs the device out,
                // so no grant of it (nor client_credentials re-login) outlives the revocation.
                try await revokeFamilies(ofClient: family.clientId, at: now)
                try await guarded("sign out instance") { try await store.unbindRegisteredClientSession(id: family.clientId) }
            } else {
                try await revokeFamily(family.id, sessionId: family.sessionId, at: now)
            }
            return
        }
        guard let (jti, familyId, expiresAt) = try await accessTokenIdentity(token) else { return }
        guard let context = try await guarded("access context", { try await store.accessContext(familyId: familyId, jti: jti) }),
              try await resolveClient(context.family.clientId, state: state)?.appKey == caller.client.appKey else { return }
        try await guarded("revoke access token") { try await store.revokeAccessToken(jti: jti, expiresAt: expiresAt) }
    }

    /// Revocation that reaches one app's grants (see `AppRevocation`).
    var appRevocation: AppRevocation {
        AppRevocation(store: store, accessTokenWindow: Self.keyRetention(for: state.config))
    }

    /// Revokes one app's family and, when that left the session without a live family, the
    /// session. Returns whether the session ended.
    @discardableResult
    func revokeFamily(_ familyId: String, sessionId: String, at now: Date) async throws -> Bool {
        try await guarded("revoke") { try await appRevocation.revokeFamily(familyId, sessionId: sessionId, at: now) }
    }

    /// Revokes every family of `clientId` (an app instance) and ends sessions left unused.
    func revokeFamilies(ofClient clientId: String, at now: Date) async throws {
        try await guarded("revoke") { try await appRevocation.revokeFamilies(ofClient: clientId, at: now) }
    }

    /// jti, family and expiry of an access token whose signature (or storage record) is genuine,
    /// expired or not.
    private func accessTokenIdentity(_ token: String) async throws -> (String, String, Date)? {
        if token.utf8.contains(UInt8(ascii: ".")) {
            guard let parts = await verifyOwnJWS(token, type: "at+jwt", keys: state.keys),
                  let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: parts.payload) else { return nil }
            return (claims.jti, claims.fid, Date(timeIntervalSince1970: TimeInterval(claims.exp)))
        }
        guard token.utf8.count <= 256,
              let opaque = try await guarded("opaque token", { try await store.opaqueToken(hash: Secrets.hash(token)) }) else { return nil }
        return (opaque.jti, opaque.familyId, opaque.expiresAt)
    }
}
