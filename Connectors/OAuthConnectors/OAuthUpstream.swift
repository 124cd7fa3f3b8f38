import ConnectorHTTP
import Foundation
import IdentityCore

/// What the `oauth2` and `openid-connect` connectors share: endpoints, the token endpoint, turning
/// a token response into an identity, and upstream refresh
/// (docs/connectors/oauth2-oidc.md, "Sessions: upstream refresh").
final class OAuthUpstream: Sendable {
    let options: OAuthOptions
    let tokenClient: TokenEndpointClient
    let http: UpstreamHTTP
    let clock: any BrokerClock
    /// The discovered provider (openid-connect only).
    let provider: OIDCProvider?
    let validator: IDTokenValidator?

    init(options: OAuthOptions, http: UpstreamHTTP, clock: any BrokerClock) {
        self.options = options
        self.http = http
        self.clock = clock
        tokenClient = TokenEndpointClient(clientId: options.clientId, clientSecret: options.clientSecret,
                                          includeClientId: options.includeClientIdInTokenRequest,
                                          includeClientSecret: options.includeClientSecretInTokenRequest,
                                          assertionKey: options.assertionKey, clock: clock, http: http)
        if options.openID, let issuer = options.issuer {
            provider = OIDCProvider(issuer: issuer, http: http, clock: clock)
            validator = IDTokenValidator(issuer: issuer, clientId: options.clientId, allowed: options.allowedAlgorithms,
                                         skew: options.clockSkew)
        } else {
            provider = nil
            validator = nil
        }
    }

    func tokenEndpoint() async throws -> String {
        if let configured = options.tokenEndpoint { return configured }
        guard let provider else { throw ConnectorFailure(.invalidResponse, "No token endpoint is configured.") }
        return try await provider.endpoints().tokenEndpoint
    }

    func authorizationEndpoint() async throws -> String {
        if let configured = options.authorizationEndpoint { return configured }
        guard let provider else { throw ConnectorFailure(.invalidResponse, "No authorization endpoint is configured.") }
        return try await provider.endpoints().authorizationEndpoint
    }

    /// Claims that describe the token rather than the user; never copied into attributes.
    static let protocolClaims: Set<String> = ["iss", "aud", "exp", "iat", "nbf", "nonce", "at_hash", "c_hash", "azp",
                                              "auth_time", "jti", "sid", "acr", "amr", "typ"]

    /// The signed-in user from a token response: id_token claims (verified), userinfo, the
    /// userIdEndpoint answer or the response itself, and the upstream token to keep.
    /// - Parameter nonce: the authorization request's nonce (code flow); nil for the password grant.
    func identity(from tokens: TokenEndpointClient.Tokens, nonce: String?) async throws -> ConnectorIdentity {
        var claims: [String: JSONValue] = [:]
        // The provider's session (the ID token's `sid`), for its back-channel logout.
        var upstreamSessionId: String?
        if let validator, let provider {
            if let idToken = tokens.idToken {
                claims = try await verified(idToken, validator: validator, provider: provider, nonce: nonce, subject: nil)
                if let sid = claims["sid"]?.stringValue, !sid.isEmpty, sid.utf8.count <= 256, let issuer = options.issuer {
                    upstreamSessionId = Self.upstreamSessionId(issuer: issuer, sid: sid)
                }
            } else if nonce != nil {
                throw ConnectorFailure(.invalidResponse, "The identity provider returned no ID token.")
            }
            if options.fetchUserInfo, let endpoint = try await provider.endpoints().userInfoEndpoint {
                let info = try await fetchJSON(endpoint, accessToken: tokens.accessToken, what: "identity provider's userinfo endpoint")
                // OIDC Core §5.3.4: userinfo about someone else is not to be trusted.
                if let subject = claims["sub"]?.stringValue, info["sub"]?.stringValue != subject {
                    throw ConnectorFailure(.invalidResponse, "The identity provider's userinfo names another user.")
                }
                claims.merge(info) { fromToken, _ in fromToken }
            }
            if claims["sub"] == nil { throw ConnectorFailure(.invalidResponse, "The identity provider did not say who signed in.") }
        }
        var userId: String?
        if let endpoint = options.userIdEndpoint {
            let answer = try await fetchJSON(endpoint, accessToken: tokens.accessToken, what: "identity provider's user endpoint")
            userId = Self.lookup(options.userIdAttribute, in: answer)
            claims.merge(answer) { current, _ in current }
        } else if options.openID {
            userId = Self.lookup(options.userIdAttribute, in: claims)
        } else {
            userId = Self.lookup(options.userIdAttribute, in: tokens.response)
        }
        guard let userId, !userId.isEmpty else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's answer carries no user id.",
                                   debug: "userIdAttribute \(options.userIdAttribute) not found")
        }
        var extra: [String: String] = [:]
        if let subject = claims["sub"]?.stringValue { extra["sub"] = subject }
        if let idToken = tokens.idToken, options.openID { extra["id_token"] = idToken }
        let attributes = claims.filter { !Self.protocolClaims.contains($0.key) }
        return ConnectorIdentity(userId: userId, attributes: attributes,
                                 upstream: UpstreamToken(token: tokens.accessToken, refreshToken: tokens.refreshToken,
                                                         expiresAt: tokens.expiresIn.map { clock.now().addingTimeInterval($0) }, extra: extra),
                                 upstreamSessionId: upstreamSessionId)
    }

    /// Renews the upstream token with its refresh token (RFC 6749 §6). A rotated refresh token
    /// replaces the old one; a refusal ends the session; an outage is thrown.
    func refresh(upstream: UpstreamToken) async throws -> RefreshOutcome {
        guard let refreshToken = upstream.refreshToken else {
            return .ended(reason: "The sign-in at the identity provider expired; sign in again.")
        }
        var grant = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if !options.scopes.isEmpty { grant.append(("scope", options.scopes.joined(separator: " "))) }
        switch try await tokenClient.request(try await tokenEndpoint(), grant: grant) {
        case .refused(let error, _):
            // Only a refusal about the user's grant ends the session. invalid_client and
            // unauthorized_client are about the broker's own registration at the provider: a
            // configuration problem to fix, not a reason to sign everybody out (502, session kept).
            guard ["invalid_grant", "access_denied"].contains(error) else {
                throw ConnectorFailure(.invalidResponse, "The identity provider refused to refresh the sign-in.", debug: error)
            }
            return .ended(reason: "The identity provider ended the sign-in; sign in again.")
        case .tokens(let tokens):
            var extra = upstream.extra
            if let idToken = tokens.idToken, let validator, let provider {
                _ = try await verified(idToken, validator: validator, provider: provider, nonce: nil, subject: upstream.extra["sub"])
                extra["id_token"] = idToken
            }
            return .refreshed(UpstreamToken(token: tokens.accessToken, refreshToken: tokens.refreshToken ?? refreshToken,
                                            expiresAt: tokens.expiresIn.map { clock.now().addingTimeInterval($0) }, extra: extra),
                              attributes: nil)
        }
    }

    private func verified(_ idToken: String, validator: IDTokenValidator, provider: OIDCProvider, nonce: String?,
                          subject: String?) async throws -> [String: JSONValue] {
        do {
            return try await validator.validate(idToken, provider: provider, nonce: nonce, expectedSubject: subject)
        } catch let refusal as IDTokenValidator.Refusal {
            throw ConnectorFailure(.invalidResponse, "The identity provider's ID token is not valid.", debug: refusal.description)
        }
    }

    /// GETs a JSON object with the upstream access token (userinfo, userIdEndpoint).
    func fetchJSON(_ url: String, accessToken: String, what: String) async throws -> [String: JSONValue] {
        let answer = try await http.get(url, headers: [("Authorization", "Bearer " + accessToken)], what: what)
        switch answer.status {
        case 200:
            guard case .object(let object)? = answer.json else {
                throw ConnectorFailure(.invalidResponse, "The \(what) did not answer with JSON.")
            }
            return object
        case 500...599: throw ConnectorFailure(.unavailable, "The \(what) is temporarily unavailable.", debug: "HTTP \(answer.status)")
        default: throw ConnectorFailure(.invalidResponse, "The \(what) refused the access token.", debug: "HTTP \(answer.status)")
        }
    }

    /// The value at `path` (`id`, `user.id`; a key that itself contains dots is tried first) as text.
    static func lookup(_ path: String, in object: [String: JSONValue]) -> String? {
        if let direct = object[path] { return text(direct) }
        var current: JSONValue = .object(object)
        for part in path.split(separator: ".") {
            guard case .object(let fields) = current, let next = fields[String(part)] else { return nil }
            current = next
        }
        return text(current)
    }

    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: String(Int64(number))
        default: nil
        }
    }
}
