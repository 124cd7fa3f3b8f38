import Foundation
import IdentityCore
import StoreContracts

/// `POST /oauth/revoke` (RFC 7009). A refresh token revokes its family (every token of that
/// app's grant; for an app instance, every grant of the instance) and, when no other app still
/// holds a live family in the same sign-in session, the session with its sealed upstream token;
/// an access token is revoked on its own. Unknown tokens and tokens of other environments are
/// ignored: the answer is always 200.
public struct RevocationEndpoint: Sendable {
    let context: EngineContext
    let familyStore: any TokenFamilyStore
    let accessTokenStore: any AccessTokenStore
    let instanceStore: any RegisteredClientStore
    let clients: ClientRegistry
    let verifier: TokenVerifier
    let revocation: Revocation

    public func revoke(_ parameters: OAuthParameters, basic: BasicCredentials?) async throws {
        let state = context.state
        let caller = try await clients.authenticate(parameters, basic: basic, in: state)
        let token = try parameters.require("token")
        guard token.utf8.count <= 16_384 else { return }
        let now = context.clock.now()
        if let (family, _) = try await familyStore.family(refreshHash: Secrets.hash(token)) {
            guard let owner = try await clients.resolve(family.clientId, in: state), owner.appKey == caller.client.appKey else { return }
            if owner.instance != nil {
                // An app instance is one device: revoking its refresh token signs the device out,
                // so no grant of it (nor client_credentials re-login) outlives the revocation.
                try await revocation.revokeFamilies(ofClient: family.clientId, at: now)
                try await instanceStore.unbindRegisteredClientSession(id: family.clientId)
            } else {
                try await revocation.revokeFamily(family.id, sessionId: family.sessionId, at: now, client: family.clientId)
            }
            return
        }
        guard let (jti, familyId, expiresAt) = try await verifier.identity(of: token) else { return }
        guard let access = try await accessTokenStore.accessContext(familyId: familyId, jti: jti),
              try await clients.resolve(access.family.clientId, in: state)?.appKey == caller.client.appKey else { return }
        try await accessTokenStore.revokeAccessToken(jti: jti, expiresAt: expiresAt)
    }
}
