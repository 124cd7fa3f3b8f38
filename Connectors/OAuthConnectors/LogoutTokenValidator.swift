import Foundation
import IdentityCore
import JOSE

/// Checks an upstream `logout_token` (OpenID Connect Back-Channel Logout 1.0 §2.6): signature
/// against the provider's JWKS with an allowed algorithm, `iss`, this client in `aud`, `iat` no
/// older than ``maxAge``, `jti`, the back-channel logout event, no `nonce`, and `sub` or `sid`.
struct LogoutTokenValidator: Sendable {
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    /// How old (its `iat`, beyond the skew) a logout token may be. The `jti` is remembered that
    /// long, so an older copy is refused by age and a younger one as a replay.
    static let maxAge: TimeInterval = 600

    let issuer: String
    let clientId: String
    let allowed: Set<JOSEAlgorithm>
    let skew: TimeInterval
    let clock: any BrokerClock

    /// What an accepted token names.
    struct Accepted: Equatable {
        var subject: String?
        var sessionId: String?
        var tokenId: String
        /// Until when its `jti` must be refused: after that its `iat` is too old anyway.
        var rememberUntil: Date
    }

    /// The policy a logout token is verified under (docs/security.md, "One JWT policy"): `typ`
    /// `logout+jwt`, `JWT` or absent (providers differ; an ID token still fails on `events`),
    /// `exp` checked when present (version 1.0 of the specification did not require it).
    var policy: JWTPolicy {
        JWTPolicy(use: "upstream logout token", algorithms: allowed, types: ["logout+jwt", "JWT"], typeMayBeAbsent: true,
                  issuer: issuer, audience: clientId, requiredClaims: ["iss", "aud", "iat", "jti", "events"], skew: skew,
                  maxLength: 16_384)
    }

    func validate(_ token: String, provider: OIDCProvider) async throws -> Accepted {
        let policy = policy
        let claims: [String: JSONValue]
        do {
            claims = try await provider.verify(token, policy: policy)
        } catch let rejection as JWTRejection {
            throw ConnectorFailure(.invalidResponse, "The logout token is not valid: \(rejection).")
        }
        return try check(claims)
    }

    /// The rules the JWT policy cannot express.
    func check(_ claims: [String: JSONValue]) throws -> Accepted {
        func refuse(_ reason: String) -> ConnectorFailure { ConnectorFailure(.invalidResponse, "The logout token \(reason).") }
        guard case .object(let events)? = claims["events"], case .object? = events[Self.event] else {
            throw refuse("does not carry the back-channel logout event")
        }
        if claims["nonce"] != nil { throw refuse("carries a nonce (an ID token is no logout token)") }
        let subject = claims["sub"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let sessionId = claims["sid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard subject != nil || sessionId != nil else { throw refuse("names neither sub nor sid") }
        guard let tokenId = claims["jti"]?.stringValue, !tokenId.isEmpty, tokenId.utf8.count <= 256 else {
            throw refuse("has no usable jti")
        }
        guard let issuedAt = claims["iat"]?.numberValue else { throw refuse("has no iat") }
        let issued = Date(timeIntervalSince1970: issuedAt)
        guard clock.now().timeIntervalSince(issued) <= Self.maxAge + skew else {
            throw refuse("is older than \(Int(Self.maxAge / 60)) minutes")
        }
        return Accepted(subject: subject, sessionId: sessionId, tokenId: tokenId,
                        rememberUntil: issued.addingTimeInterval(Self.maxAge + 2 * skew))
    }
}
