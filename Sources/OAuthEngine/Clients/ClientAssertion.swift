import Foundation
import IdentityCore
import JOSE

/// A JWT a client signs to authenticate (RFC 7523 §2.2, OpenID Connect Core §9): with its
/// private key (`private_key_jwt`) or keyed with its secret (`client_secret_jwt`),
/// docs/client-authentication.md. Checking it is pure; the single use of its `jti` is
/// ``ClientAssertions``' job.
struct ClientAssertion: Sendable {
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest lifetime accepted (`exp` − now): its `jti` is remembered that long, and a
    /// leaked assertion is good for no longer.
    static let maximumLifetime: TimeInterval = 3600
    static let skew: TimeInterval = 60
    /// Signature algorithms of `private_key_jwt` (never `none`, never an HMAC with a public key).
    static let algorithms = JOSEAlgorithm.defaultAllowed

    let text: String
    /// The client the assertion names in `sub` — unverified until ``verify(keys:issuer:now:)``.
    let clientId: String

    /// The claims a verified assertion leaves for the replay check.
    struct Verified: Sendable {
        let jti: String
        let expiresAt: Date
    }

    /// What verifies the signature.
    enum Keys {
        case published(any JWSKeySource)
        case secret(String)
    }

    /// The assertion a request carries, nil when it carries none; `invalid_client` when it is
    /// there but incomplete, of another type, or names no client.
    static func from(_ parameters: OAuthParameters) throws -> ClientAssertion? {
        let type = parameters["client_assertion_type"], text = parameters["client_assertion"]
        guard type != nil || text != nil else { return nil }
        guard type == Self.type else { throw OAuthError.invalidClient("client_assertion_type must be \(Self.type).") }
        guard let text, !text.isEmpty else { throw OAuthError.invalidClient("client_assertion is missing.") }
        guard let claims = CompactJWS.decode(text, maxLength: maxLength)?.claims,
              let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 512 else {
            throw OAuthError.invalidClient("The client assertion is not a JWT naming its client in 'sub'.")
        }
        return ClientAssertion(text: text, clientId: subject)
    }

    static let maxLength = 8_192

    /// `typ` absent, `JWT` or RFC 7523bis's `client-authentication+jwt`; `iss` the client (as
    /// `sub` is), `aud`, `exp` and `jti` required; one minute of clock skew.
    static func policy(clientId: String) -> JWTPolicy {
        JWTPolicy(use: "client assertion", algorithms: algorithms, types: ["JWT", "client-authentication+jwt"], typeMayBeAbsent: true,
                  issuer: clientId, requiredClaims: ["iss", "sub", "aud", "exp", "jti"], skew: skew, maxLength: maxLength)
    }

    /// The signature, `iss` = `sub` = the client, an `aud` naming this broker (its issuer or
    /// one of its endpoints that take client authentication: libraries put the token endpoint
    /// everywhere), an `exp` no further than an hour away, and a `jti`. The detail goes to the
    /// log; the client reads one sentence.
    func verify(keys: Keys, issuer: String, now: Date) throws -> Verified {
        let claims: [String: JSONValue]
        let policy = Self.policy(clientId: clientId)
        do {
            switch keys {
            case .published(let source): claims = try JWTVerifier.verify(text, keys: source, policy: policy, now: now).claims
            case .secret(let secret): claims = try SharedSecretJWT.verify(text, secret: Data(secret.utf8), policy: policy, now: now)
            }
        } catch {
            guard error != .wrongIssuer else {
                throw OAuthError.invalidClient("The client assertion's 'iss' and 'sub' must both be the client_id.")
            }
            throw OAuthError.invalidClient("The client assertion is not valid.", debug: error.description)
        }
        let audiences: [String] = switch claims["aud"] {
        case .string(let one)?: [one]
        case .array(let many)?: many.compactMap(\.stringValue)
        default: []
        }
        let accepted = Self.audiences(issuer: issuer)
        guard audiences.contains(where: accepted.contains) else {
            throw OAuthError.invalidClient("The client assertion's 'aud' must be the issuer or the token endpoint.")
        }
        guard let expiry = claims["exp"]?.numberValue, expiry <= now.timeIntervalSince1970 + Self.maximumLifetime + Self.skew else {
            throw OAuthError.invalidClient("The client assertion may live at most an hour ('exp').")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw OAuthError.invalidClient("The client assertion needs a 'jti' of at most 256 bytes.")
        }
        return Verified(jti: jti, expiresAt: Date(timeIntervalSince1970: expiry))
    }

    /// The issuer and the URLs of the endpoints that authenticate clients, with Kinvey's version
    /// prefixes (`/v3/oauth/token` is the token endpoint too).
    static let endpoints = ["token", "par", "introspect", "revoke", "device_authorization"]
    static func audiences(issuer: String) -> Set<String> {
        Set([issuer, issuer + "/"] + ["", "/v1", "/v2", "/v3"].flatMap { prefix in endpoints.map { "\(issuer)\(prefix)/oauth/\($0)" } })
    }
}

/// Keys a client or an app vendor publishes: a key without a `kid` matches whatever `kid` a
/// token names (many publish one unnamed key); otherwise the `kid` must match.
///
/// At most ``maximumCandidates`` keys are tried for one token: a token without `kid` cannot make
/// the broker check its signature against every key of a large set.
struct PublishedKeys: JWSKeySource {
    static let maximumCandidates = 8
    let set: JSONWebKeySet

    func candidates(kid: String?, algorithm: JOSEAlgorithm) -> [JSONWebKey] {
        Array(set.keys.lazy.filter { $0.fits(algorithm) && (kid == nil || $0.kid == nil || $0.kid == kid) }.prefix(Self.maximumCandidates))
    }
}
