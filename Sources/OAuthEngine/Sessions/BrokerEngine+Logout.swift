import Foundation
import IdentityCore
import IdentityStore

/// Where `/oauth/logout` sends the browser.
public enum LogoutOutcome: Sendable, Equatable {
    case redirect(String)
    /// Show the "signed out" page.
    case signedOut
}

extension BrokerEngine {
    /// `GET /oauth/logout` (OIDC RP-initiated logout): ends the sessions named by `id_token_hint`
    /// and the browser's SSO record, then redirects to a *registered* `post_logout_redirect_uri`
    /// with `state` — or first to the identity source's logout (SAML `logoutUri`).
    public func logout(_ parameters: OAuthParameters, ssoToken: String?) async throws -> LogoutOutcome {
        let now = clock.now()
        let state = self.state
        var client = try await parameters["client_id"].asyncMap { try await resolveClient($0, state: state) } ?? nil
        var hintedSession: String?
        if let hint = parameters["id_token_hint"] {
            // Expired hints are fine; a signature we did not make is not.
            guard let parts = await verifyOwnJWS(hint, type: nil, keys: state.keys),
                  let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: parts.payload), claims.iss == issuer else {
                throw OAuthError.invalidRequest("id_token_hint is not an ID token issued by this server.")
            }
            if let hinted = try await resolveClient(claims.aud, state: state) {
                if let named = client, !named.isSameClient(as: hinted) {
                    throw OAuthError.invalidRequest("client_id does not match id_token_hint.")
                }
                client = hinted
            }
            hintedSession = claims.sid
        }
        var userId: String?
        if let sessionId = hintedSession {
            userId = try await guarded("logout session") { try await store.session(id: sessionId) }?.userId
            try await guarded("logout") { try await store.revokeSession(id: sessionId, at: now) }
        }
        try await forgetSSO(ssoToken)
        var target: String?
        if let uri = parameters["post_logout_redirect_uri"] {
            guard let client, client.redirectURIs.contains(uri) else {
                throw OAuthError.invalidRequest("post_logout_redirect_uri is not registered for this client.")
            }
            target = RedirectURL.build(uri, [("state", parameters["state"])])
        }
        if let client, let connector = client.authService.connector as? any LogoutRedirectingConnector,
           let upstream = connector.logoutRedirect(userId: userId ?? "", postLogoutRedirect: target) {
            return .redirect(upstream)
        }
        return target.map { .redirect($0) } ?? .signedOut
    }
}
