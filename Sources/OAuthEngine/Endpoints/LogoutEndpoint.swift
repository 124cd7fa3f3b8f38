import Foundation
import IdentityCore
import StoreContracts

/// Where `/oauth/logout` sends the browser.
public enum LogoutOutcome: Sendable, Equatable {
    case redirect(String)
    /// On to the identity source's own logout first (a SAML LogoutRequest, by redirect or by an
    /// auto-submitting form); it comes back to `/saml/slo`, which then goes where `.redirect`
    /// would have.
    case upstream(RedirectAction)
    /// Show the "signed out" page.
    case signedOut
    /// Ask the person first (docs/security.md, rules 7 and 12): a page with a form that POSTs these
    /// parameters back with `confirm` and the CSRF token.
    /// `cancel`: where "Cancel" leads (the app's web origin), when there is one.
    case confirm(parameters: [String: String], clientName: String?, cancel: String?)
}

/// `GET|POST /oauth/logout` (OIDC RP-initiated logout, docs/protocol.md, "GET, POST /oauth/logout";
/// docs/security.md, rules 7 and 12).
public struct LogoutEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let clients: ClientRegistry
    let keys: SigningKeyReloader
    let sso: SSOSessions
    let upstreamLogout: UpstreamLogout

    /// `GET|POST /oauth/logout` (OIDC RP-initiated logout).
    ///
    /// A logout ends sessions only in the browser that asks (docs/security.md, rule 12): without
    /// asking when the `id_token_hint` is an ID token of ours (expired ones too) for a session this
    /// browser's SSO cookie holds; otherwise only after the person confirms on a page whose form
    /// carries a CSRF token bound to this browser — and then it ends this browser's sign-ins,
    /// nobody else's. So a resource server that saw the user's tokens cannot sign them out
    /// anywhere. Then it redirects to a *registered* `post_logout_redirect_uri` with `state`, or
    /// first to the identity source's logout: a SAML LogoutRequest for the session signed out
    /// (the hinted one, else the most recent of the client's auth service), which returns through
    /// `/saml/slo` (docs/connectors/saml.md, "Single logout").
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
            guard let verified = await keys.verify(hint, policy: BrokerJWTPolicies.idTokenHint(issuer: context.issuer), with: state.keys),
                  let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: verified.payload) else {
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
            guard let client, RedirectURL.isRegistered(uri, in: client.redirectURIs) else {
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
                return .confirm(parameters: carried, clientName: client.flatMap { $0.appName ?? $0.service.name }, cancel: client?.home)
            }
        }
        let entries = await sso.entries(ssoToken)
        let chosen = entries.first { $0.sessionId == hintedSession }
            ?? entries.first { $0.namespace == client?.authService.namespace } ?? entries.first
        // Read before the session ends: ending it drops the upstream token SAML logout needs.
        let single = try await chosen.asyncMap(singleLogout(of:)) ?? nil
        try await sso.forget(ssoToken)
        if let single, let action = await upstreamLogout.begin(single, postLogoutRedirect: target) {
            return .upstream(action)
        }
        if let client, let connector = client.authService.connector as? any LogoutRedirectingConnector,
           let upstream = connector.logoutRedirect(userId: chosen?.userId ?? "", postLogoutRedirect: target) {
            return .redirect(upstream)
        }
        return target.map { .redirect($0) } ?? .signedOut
    }

    /// What the identity source's logout needs from the sign-in `entry` names, when it is live
    /// and its auth service takes part in single logout.
    private func singleLogout(of entry: SSORecord.Entry) async throws -> PreparedUpstreamLogout? {
        guard let session = try await sessionStore.session(id: entry.sessionId),
              session.isActive(at: context.clock.now()) else { return nil }
        return upstreamLogout.prepare(session)
    }

    /// The CSRF token of the sign-out confirmation form: derived from the browser's binding
    /// cookie (HttpOnly), so only a page served to that browser can carry it.
    public static func csrfToken(browserBinding: String) -> String {
        Secrets.hash("logout\u{0}" + browserBinding)
    }

}
