import Foundation
import IdentityCore
import StoreContracts

/// Where `/oauth/logout` sends the browser.
public enum LogoutOutcome: Sendable, Equatable {
    case redirect(String)
    /// Show the "signed out" page.
    case signedOut
    /// Ask the person first (docs/security.md, rules 7 and 12): a page with a form that POSTs these
    /// parameters back with `confirm` and the CSRF token.
    case confirm(parameters: [String: String], clientName: String?)
}

/// `GET|POST /oauth/logout` (OIDC RP-initiated logout, docs/protocol.md, "GET, POST /oauth/logout";
/// docs/security.md, rules 7 and 12).
public struct LogoutEndpoint: Sendable {
    let context: EngineContext
    let clients: ClientRegistry
    let keys: SigningKeyReloader
    let sso: SSOSessions

    /// `GET|POST /oauth/logout` (OIDC RP-initiated logout).
    ///
    /// A logout ends sessions only in the browser that asks (docs/security.md, rule 12): without
    /// asking when the `id_token_hint` is an ID token of ours (expired ones too) for a session this
    /// browser's SSO cookie holds; otherwise only after the person confirms on a page whose form
    /// carries a CSRF token bound to this browser — and then it ends this browser's sign-ins,
    /// nobody else's. So a resource server that saw the user's tokens cannot sign them out
    /// anywhere. Then it redirects to a *registered* `post_logout_redirect_uri` with `state`, or
    /// first to the identity source's logout (SAML `logoutUri`).
    ///
    /// - Parameters:
    ///   - ssoToken: the browser's SSO cookie.
    ///   - confirmation: the form's CSRF token and the browser's binding cookie, when the person
    ///     confirmed on the page; nil for a plain request.
    public func logout(_ parameters: OAuthParameters, ssoToken: String?,
                       confirmation: (csrfToken: String?, browserBinding: String?)? = nil) async throws -> LogoutOutcome {
        let state = context.state
        var client = try await parameters["client_id"].asyncMap { try await clients.resolve($0, in: state) } ?? nil
        var hintedSession: String?
        if let hint = parameters["id_token_hint"] {
            // Our ID tokens only (typ JWT, never an access token); expired hints are fine.
            guard hint.utf8.count <= 8_192, let parts = await keys.verify(hint, type: "JWT", with: state.keys),
                  let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: parts.payload), claims.iss == context.issuer else {
                throw OAuthError.invalidRequest("id_token_hint is not an ID token issued by this server.")
            }
            if let hinted = try await clients.resolve(claims.aud, in: state) {
                if let named = client, !named.isSameClient(as: hinted) {
                    throw OAuthError.invalidRequest("client_id does not match id_token_hint.")
                }
                client = hinted
            }
            hintedSession = claims.sid
        }
        var target: String?
        if let uri = parameters["post_logout_redirect_uri"] {
            guard let client, client.redirectURIs.contains(uri) else {
                throw OAuthError.invalidRequest("post_logout_redirect_uri is not registered for this client.")
            }
            target = RedirectURL.build(uri, [("state", parameters["state"])])
        }
        if let confirmation {
            guard let token = confirmation.csrfToken, let binding = confirmation.browserBinding,
                  Secrets.constantTimeEquals(token, Self.csrfToken(browserBinding: binding)) else {
                throw OAuthError.invalidRequest("The sign-out form is no longer valid. Reload the page and try again.")
            }
        } else {
            guard let hintedSession, await sso.holds(hintedSession, ssoToken: ssoToken) else {
                var carried: [String: String] = [:]
                for name in ["id_token_hint", "post_logout_redirect_uri", "state", "client_id"] { carried[name] = parameters[name] }
                return .confirm(parameters: carried, clientName: client?.service.name)
            }
        }
        let userId = try await signOutBrowser(ssoToken, preferring: hintedSession)
        if let client, let connector = client.authService.connector as? any LogoutRedirectingConnector,
           let upstream = connector.logoutRedirect(userId: userId ?? "", postLogoutRedirect: target) {
            return .redirect(upstream)
        }
        return target.map { .redirect($0) } ?? .signedOut
    }

    /// The CSRF token of the sign-out confirmation form: derived from the browser's binding
    /// cookie (HttpOnly), so only a page served to that browser can carry it.
    public static func csrfToken(browserBinding: String) -> String {
        Secrets.hash("logout\u{0}" + browserBinding)
    }

    /// Ends every sign-in of this browser's SSO record; returns the user of the hinted session
    /// (else the most recent one), for the identity source's own logout.
    private func signOutBrowser(_ ssoToken: String?, preferring sessionId: String?) async throws -> String? {
        let entries = try await sso.forget(ssoToken)
        return (entries.first { $0.sessionId == sessionId } ?? entries.first)?.userId
    }
}
