import Foundation
import IdentityCore

/// Back-channel logout from an OpenID provider (docs/connectors/oauth2-oidc.md, "Back-channel
/// logout from the provider"): the provider POSTs a signed `logout_token` naming the user (`sub`)
/// or its session (`sid`, which the broker kept from the ID token of each sign-in).
extension OAuthUpstream {
    /// How a sign-in remembers the provider's session: its issuer and the ID token's `sid`, so
    /// that one provider's `sid` can never end a session another provider started.
    static func upstreamSessionId(issuer: String, sid: String) -> String {
        issuer + " " + sid
    }

    func verifyLogoutToken(_ token: String) async throws -> UpstreamBackchannelLogout {
        guard options.openID, let provider, let issuer = options.issuer else {
            throw ConnectorFailure(.invalidResponse, "This auth service is no OpenID Connect provider: it takes no logout tokens.")
        }
        let validator = LogoutTokenValidator(issuer: issuer, clientId: options.clientId, allowed: options.allowedAlgorithms,
                                             skew: options.clockSkew, clock: clock)
        let accepted = try await validator.validate(token, provider: provider)
        // `sub` is the broker's user id only where the auth service takes it as such.
        let userId = options.userIdEndpoint == nil && options.userIdAttribute == "sub" ? accepted.subject : nil
        guard userId != nil || accepted.sessionId != nil else {
            throw ConnectorFailure(.invalidResponse, "The logout token names no sid, and its sub is not this auth service's user id "
                                   + "(userIdAttribute: \(options.userIdAttribute)): no sign-in can be matched.")
        }
        return UpstreamBackchannelLogout(userId: userId,
                                         upstreamSessionId: accepted.sessionId.map { Self.upstreamSessionId(issuer: issuer, sid: $0) },
                                         oneTimeUse: .init(id: issuer + " " + accepted.tokenId, expiresAt: accepted.rememberUntil))
    }
}

extension OAuthCodeConnector: BackchannelLogoutConnector {
    func verifyLogoutToken(_ token: String) async throws -> UpstreamBackchannelLogout {
        try await upstream.verifyLogoutToken(token)
    }
}

extension OAuthPasswordConnector: BackchannelLogoutConnector {
    func verifyLogoutToken(_ token: String) async throws -> UpstreamBackchannelLogout {
        try await upstream.verifyLogoutToken(token)
    }
}
