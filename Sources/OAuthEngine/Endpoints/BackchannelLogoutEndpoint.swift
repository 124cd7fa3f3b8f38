import Foundation
import IdentityCore
import StoreContracts

/// `POST /oauth/backchannel-logout/{client}` (docs/connectors/oauth2-oidc.md, "Back-channel logout
/// from the provider"): an OpenID provider tells the broker, server to server, that a user signed
/// out there (OpenID Connect Back-Channel Logout 1.0). `{client}` names the auth service the
/// provider is configured for (`appKey.authServiceId`, as its client id at the broker).
///
/// The auth service's connector verifies the `logout_token` with the provider's keys; the broker
/// then ends, in storage and so on every instance at once, the sessions it names — the sign-in
/// whose ID token carried its `sid`, or every sign-in of its `sub` — with their token families
/// and sealed upstream tokens. A token is taken once (its `jti`); a refused one ends nothing.
public struct BackchannelLogoutEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let grantStore: any OneTimeGrantStore

    /// Ends what `logoutToken` names; returns how many sessions ended (none is a success too: the
    /// user may have signed out of the broker already). Throws `invalid_request` for a token or an
    /// auth service that is refused, `temporarily_unavailable` when the provider's keys or the
    /// storage could not be reached (the provider may send it again).
    @discardableResult
    public func receive(logoutToken: String?, authService clientId: String) async throws -> Int {
        guard let service = context.state.directory.resolve(clientId)?.authService else {
            throw OAuthError.invalidRequest("No auth service is known as '\(clientId.prefix(80))'.")
        }
        guard let connector = service.connector as? any BackchannelLogoutConnector else {
            throw OAuthError.invalidRequest("The auth service '\(clientId.prefix(80))' takes no back-channel logout: "
                                            + "only openid-connect auth services do.")
        }
        guard let logoutToken, !logoutToken.isEmpty else { throw OAuthError.invalidRequest("logout_token is missing.") }
        let logout: UpstreamBackchannelLogout
        do {
            logout = try await connector.verifyLogoutToken(logoutToken)
        } catch let failure as ConnectorFailure where failure.kind == .invalidResponse {
            context.logger.notice("back-channel logout token refused",
                                  metadata: ["authService": "\(service.namespace)", "reason": "\(failure.message)"])
            throw OAuthError.invalidRequest(failure.message)
        } catch {
            throw ConnectorErrors.oauthError(for: error)
        }
        let once = logout.oneTimeUse
        guard try await grantStore.insertOneTimeGrantIfAbsent(hash: Secrets.hash("once:" + once.id), sealed: Data(),
                                                              expiresAt: once.expiresAt) else {
            context.logger.notice("back-channel logout token replayed", metadata: ["authService": "\(service.namespace)"])
            throw OAuthError.invalidRequest("This logout token was already used (jti).")
        }
        let now = context.clock.now()
        let key = logout.upstreamSessionId.map(Secrets.hash)
        let ended: [String]
        switch (logout.userId, key) {
        case (let userId?, let key):
            // The user's sign-ins: those of the named provider session, and those whose session the
            // broker does not know (signed in before it kept `sid`); without `sid`, all of them.
            ended = try await sessionStore.endSessions(subject: SubjectIdentifier.make(namespace: service.namespace, userId: userId),
                                                       upstreamSessionKeys: key.map { [$0] }, at: now)
        case (nil, let key?):
            ended = try await sessionStore.endSessions(upstreamSessionKey: key, at: now)
        case (nil, nil):
            throw OAuthError.invalidRequest("The logout token names no sign-in the broker can find.")
        }
        context.audit.sessionsEnded(ended, reason: .backchannelLogout)
        context.logger.info("identity provider ended sessions by back-channel logout",
                            metadata: ["authService": "\(service.namespace)", "sessions": "\(ended.count)"])
        return ended.count
    }
}
