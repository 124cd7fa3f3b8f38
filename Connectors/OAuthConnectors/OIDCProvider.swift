import ConnectorHTTP
import Foundation
import IdentityCore
import JOSE

/// An upstream OpenID provider as discovered from its issuer: endpoints from
/// `/.well-known/openid-configuration` and signing keys from its JWKS, both cached.
///
/// The JWKS is fetched again when a token names a `kid` the cache does not hold (key rotation),
/// but at most once per ``minimumRefetchInterval``, so forged `kid`s cannot make the broker
/// hammer the provider.
actor OIDCProvider {
    struct Metadata: Sendable {
        var authorizationEndpoint: String
        var tokenEndpoint: String
        var userInfoEndpoint: String?
        var jwksURI: String
    }

    let issuer: String
    let http: UpstreamHTTP
    let clock: any BrokerClock
    /// Keys are fetched again after this long even when every `kid` is known.
    let keysMaxAge: TimeInterval = 3600
    let metadataMaxAge: TimeInterval = 86_400
    let minimumRefetchInterval: TimeInterval

    private var metadata: (value: Metadata, fetchedAt: Date)?
    private var keys: (value: JSONWebKeySet, fetchedAt: Date)?
    /// When the JWKS was last asked for, whether or not that worked: the rate limit counts attempts.
    private var lastKeysAttempt: Date?
    private var inflightKeys: Task<JSONWebKeySet, any Error>?

    init(issuer: String, http: UpstreamHTTP, clock: any BrokerClock, minimumRefetchInterval: TimeInterval = 30) {
        self.issuer = issuer
        self.http = http
        self.clock = clock
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// The provider's endpoints; fetched on first use and daily after that.
    func endpoints() async throws -> Metadata {
        if let metadata, clock.now().timeIntervalSince(metadata.fetchedAt) < metadataMaxAge { return metadata.value }
        let url = issuer.trimmingSuffix("/") + "/.well-known/openid-configuration"
        let answer = try await http.get(url, what: "identity provider's discovery document")
        guard answer.status == 200 else {
            throw ConnectorFailure(answer.status >= 500 ? .unavailable : .invalidResponse,
                                   "The identity provider's discovery document could not be read.", debug: "HTTP \(answer.status) from \(url)")
        }
        guard case .object(let document)? = answer.json else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's discovery document is not JSON.")
        }
        // OpenID Connect Discovery §4.3: the document must name exactly the configured issuer.
        guard document["issuer"]?.stringValue == issuer else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's discovery document names another issuer.",
                                   debug: "expected \(issuer), got \(document["issuer"]?.stringValue ?? "none")")
        }
        func endpoint(_ name: String) -> String? {
            guard let text = document[name]?.stringValue, ConfigReader.absoluteURL(text, schemes: ["http", "https"]) != nil else { return nil }
            return text
        }
        guard let authorization = endpoint("authorization_endpoint"), let token = endpoint("token_endpoint"),
              let jwks = endpoint("jwks_uri") else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's discovery document lacks an endpoint.")
        }
        let value = Metadata(authorizationEndpoint: authorization, tokenEndpoint: token,
                             userInfoEndpoint: endpoint("userinfo_endpoint"), jwksURI: jwks)
        metadata = (value, clock.now())
        return value
    }

    /// Signing keys able to check a token with `kid`: the cached set, or a fresh one when the
    /// cache is old or lacks `kid`. Fetches are attempts-limited (failed ones count too, so forged
    /// `kid`s cannot hammer a provider that is erroring), and when a fetch fails the cached set is
    /// still used for the `kid`s it holds: an hour-old key set stays good while the provider's
    /// JWKS endpoint is briefly down.
    func keys(for kid: String?) async throws -> JSONWebKeySet {
        let now = clock.now()
        let cached = keys?.value
        let known = cached.map { set in kid.map { set.contains(kid: $0) } ?? true } ?? false
        if let keys, known, now.timeIntervalSince(keys.fetchedAt) < keysMaxAge { return keys.value }
        if inflightKeys == nil, let lastKeysAttempt, now.timeIntervalSince(lastKeysAttempt) < minimumRefetchInterval {
            if let cached { return cached }
            throw ConnectorFailure(.unavailable, "The identity provider's signing keys could not be read; try again shortly.")
        }
        do {
            if let inflightKeys { return try await inflightKeys.value }
            lastKeysAttempt = now
            let task = Task { try await self.fetchKeys() }
            inflightKeys = task
            defer { inflightKeys = nil }
            let fetched = try await task.value
            keys = (fetched, clock.now())
            return fetched
        } catch {
            if let cached, known { return cached }
            throw error
        }
    }

    /// The claims of a JWT this provider signed, verified under `policy` with its keys (fetched again
    /// for an unknown `kid`, within the limits of ``keys(for:)``). Throws ``JWTRejection`` for a token
    /// that fails a check, ``ConnectorFailure`` when the keys cannot be read.
    func verify(_ token: String, policy: JWTPolicy) async throws -> [String: JSONValue] {
        let checked = try JWTVerifier.checkHeader(token, policy: policy)
        let keys = try await keys(for: checked.parts.keyId)
        return try JWTVerifier.verify(checked, keys: keys, policy: policy, now: clock.now()).claims
    }

    private func fetchKeys() async throws -> JSONWebKeySet {
        let url = try await endpoints().jwksURI
        let answer = try await http.get(url, what: "identity provider's key set")
        guard answer.status == 200 else {
            throw ConnectorFailure(answer.status >= 500 ? .unavailable : .invalidResponse,
                                   "The identity provider's signing keys could not be read.", debug: "HTTP \(answer.status) from \(url)")
        }
        guard let set = JSONWebKeySet(parsing: answer.body) else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's key set is not a JWKS.")
        }
        return set
    }
}
