import Foundation
import IdentityCore

/// `oauth2` / `openid-connect` with `grantType: password` (RFC 6749 §4.3): the hosted login page,
/// the automated grant and the password grant hand the credentials to the provider's token endpoint.
final class OAuthPasswordConnector: PasswordConnector, RefreshingConnector {
    let upstream: OAuthUpstream

    init(upstream: OAuthUpstream) { self.upstream = upstream }

    func login(_ credentials: PasswordCredentials) async throws -> LoginResult {
        guard !credentials.username.isEmpty, !credentials.password.isEmpty else {
            return .rejected(LoginRejection(.invalidCredentials))
        }
        var grant = [("grant_type", "password"), ("username", credentials.username), ("password", credentials.password)]
        if !upstream.options.scopes.isEmpty { grant.append(("scope", upstream.options.scopes.joined(separator: " "))) }
        switch try await upstream.tokenClient.request(try await upstream.tokenEndpoint(), grant: grant) {
        case .refused(let error, _):
            if error == "invalid_grant" || error == "access_denied" { return .rejected(LoginRejection(.invalidCredentials)) }
            throw ConnectorFailure(.invalidResponse, "The identity provider refused the password grant for this client.", debug: error)
        case .tokens(let tokens):
            return .authenticated(try await upstream.identity(from: tokens, nonce: nil))
        }
    }

    func refresh(userId: String, upstream token: UpstreamToken) async throws -> RefreshOutcome {
        try await upstream.refresh(upstream: token)
    }
}
