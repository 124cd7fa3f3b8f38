import ConnectorHTTP
import Foundation
import IdentityCore

/// Tokens an app got from the provider itself, brought to the broker's token exchange
/// (docs/token-exchange.md): an ID token is checked against the provider's keys and issuer with
/// the allowed audiences; an access token is checked by the provider, at its userinfo endpoint
/// (or the `oauth2` connector's `userIdEndpoint`), and kept as the session's upstream token.
extension OAuthUpstream {
    func identity(exchanging token: String, isIDToken: Bool, audiences: [String]) async throws -> ConnectorIdentity? {
        guard token.utf8.count <= 32_768 else { return nil }
        var claims: [String: JSONValue]
        var upstream: UpstreamToken?
        if isIDToken {
            guard let provider else { return nil }
            guard let found = try await idTokenClaims(token, provider: provider, audiences: audiences.isEmpty ? [options.clientId] : audiences)
            else { return nil }
            claims = found
        } else {
            let endpoint: String?
            if let configured = options.userIdEndpoint { endpoint = configured } else { endpoint = try await provider?.endpoints().userInfoEndpoint }
            guard let endpoint else { return nil }
            let answer = try await http.get(endpoint, headers: [("Authorization", "Bearer " + token)], what: "identity provider's userinfo endpoint")
            switch answer.status {
            case 200:
                guard case .object(let object)? = answer.json else {
                    throw ConnectorFailure(.invalidResponse, "The identity provider's userinfo endpoint did not answer with JSON.")
                }
                claims = object
            case 500...599:
                throw ConnectorFailure(.unavailable, "The identity provider's userinfo endpoint is temporarily unavailable.")
            default:
                return nil
            }
            upstream = UpstreamToken(token: token, expiresAt: Self.expiry(ofJWT: token), extra: claims["sub"]?.stringValue.map { ["sub": $0] } ?? [:])
        }
        guard let userId = Self.lookup(options.userIdAttribute, in: claims), !userId.isEmpty else { return nil }
        return ConnectorIdentity(userId: userId, attributes: claims.filter { !Self.protocolClaims.contains($0.key) }, upstream: upstream)
    }

    /// How old an ID token brought to the exchange may be: it stands for a sign-in that just
    /// happened, not for one an app kept (ID tokens are not credentials to hold on to).
    static let exchangedIDTokenMaxAge: TimeInterval = 600

    /// The claims of an ID token signed by the provider for one of `audiences`, issued within
    /// ``exchangedIDTokenMaxAge``; nil otherwise.
    private func idTokenClaims(_ token: String, provider: OIDCProvider, audiences: [String]) async throws -> [String: JSONValue]? {
        for audience in audiences {
            let validator = IDTokenValidator(issuer: provider.issuer, clientId: audience, allowed: options.allowedAlgorithms,
                                             skew: options.clockSkew)
            guard let claims = try? await validator.validate(token, provider: provider, nonce: nil) else { continue }
            let issuedAt: TimeInterval
            switch claims["iat"] {
            case .int(let seconds)?: issuedAt = TimeInterval(seconds)
            case .double(let seconds)?: issuedAt = seconds
            default: return nil
            }
            guard clock.now().timeIntervalSince1970 - issuedAt <= Self.exchangedIDTokenMaxAge + options.clockSkew else { return nil }
            return claims
        }
        return nil
    }

    /// A JWT access token's `exp`, read only to know when the kept token runs out (the provider
    /// vouched for the token at userinfo); nil for anything else.
    static func expiry(ofJWT token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              case .object(let claims)? = JSONValue(parsing: Data(payload)), case .int(let exp)? = claims["exp"] else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(exp))
    }
}

extension OAuthCodeConnector: TokenExchangingConnector {
    func identity(exchanging token: String, isIDToken: Bool, audiences: [String]) async throws -> ConnectorIdentity? {
        try await upstream.identity(exchanging: token, isIDToken: isIDToken, audiences: audiences)
    }
}

extension OAuthPasswordConnector: TokenExchangingConnector {
    func identity(exchanging token: String, isIDToken: Bool, audiences: [String]) async throws -> ConnectorIdentity? {
        try await upstream.identity(exchanging: token, isIDToken: isIDToken, audiences: audiences)
    }
}
