import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// `grant_type=client_credentials` for registered app instances
/// (docs/protocol.md, "POST /oauth/token" and "Mobile app instances"): "re-login". The instance
/// proves its own secret and gets a new access token for the user it is bound to, while that user's
/// session lives and the instance has not signed out (revoked its refresh token). No refresh token
/// and no ID token: nobody signed in.
struct ClientCredentialsGrant: TokenGrant {
    static let grantType = "client_credentials"
    let sessions: any SessionStore
    let families: any TokenFamilyStore
    let refresher: UpstreamRefresher
    let issuer: TokenIssuer
    let clock: any BrokerClock

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        let client = authenticated.client
        guard let instance = client.instance else {
            throw OAuthError.unauthorizedClient("client_credentials is only for registered app instances.")
        }
        guard authenticated.authenticated else {
            throw OAuthError.invalidClient("client_credentials requires the instance's client secret.")
        }
        let ended = OAuthError.invalidGrant("The user of this app instance is no longer signed in; sign in again.")
        guard let sessionId = instance.sessionId, let subject = instance.boundSubject else {
            throw OAuthError.invalidGrant("Nobody is signed in to this app instance; sign in first.")
        }
        let now = clock.now()
        guard var session = try await sessions.session(id: sessionId),
              session.isActive(at: now), session.subject == subject else { throw ended }
        do {
            session = try await refresher.ensureFresh(session, authService: client.authService)
        } catch is SessionEnded {
            throw ended
        }
        let scope = Scopes.grant(parameters["scope"] ?? instance.scope, within: instance.scope,
                                 extra: Scopes.extra(for: client))
            .split(separator: " ").filter { $0 != "openid" && $0 != "offline_access" }.joined(separator: " ")
        try client.apiResources.checkRequested(parameters["scope"])
        let targets = try client.apiResources.targets(parameters.resources, granted: scope)
        let family = TokenFamily(id: Secrets.randomToken(bytes: 24), sessionId: session.id, clientId: client.clientId,
                                 scope: scope, nonce: nil, createdAt: now, refreshHash: nil, refreshExpiresAt: nil,
                                 clientAuthenticated: true, resources: targets, dpopJkt: authenticated.dpopJkt)
        try await families.insertFamily(family)
        return try await issuer.mint(session: session, family: family, client: client, refreshToken: nil,
                                     includeIDToken: false, includeNonce: false, keys: keys)
    }
}
