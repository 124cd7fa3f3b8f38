import Crypto
import EngineTesting
import Foundation
import IdentityCore
import JOSE
@testable import OAuthConnectors
@testable import OAuthEngine
import Testing

/// One JWT policy for every JWT the broker accepts (docs/security.md, "One JWT policy"): each use's
/// ``JWTPolicy`` — the ones its code verifies with — gets the same hostile set, and each must refuse
/// every member for the right reason.
@Suite("Security: one JWT policy, every use refuses the same hostile tokens")
struct JWTPolicyTests {
    /// One place the broker accepts JWTs: its policy, the key that signs genuine tokens, the keys
    /// it verifies with, and what a genuine token of that use looks like.
    struct Use: @unchecked Sendable, CustomTestStringConvertible {
        let name: String
        let policy: JWTPolicy
        let signer: SigningKey
        let keys: any JWSKeySource
        let type: String?
        let claims: [String: Any]
        var testDescription: String { name }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://id.example.com"
    static let rsa = try! TestSigningKeys.make(.rs256)
    static let ring = SigningKeyRing(active: rsa, published: [])
    static let vendor = try! SigningKey.generate(.es256)
    static let upstream = try! TestSigningKeys.make(.rs256)
    /// RSA material nobody trusts (made once: RSA generation is slow in a debug build).
    static let strangerRSA = try! SigningKey.generate(.rs256).pem

    static var uses: [Use] {
        let t = Int(now.timeIntervalSince1970)
        let own: [String: Any] = ["iss": issuer, "sub": "u1", "aud": "kid_app", "exp": t + 600, "iat": t, "jti": "j1"]
        let validator = IDTokenValidator(issuer: "https://idp.example.com", clientId: "broker", allowed: [.rs256, .es256],
                                         skew: 60)
        return [
            Use(name: "access token", policy: BrokerJWTPolicies.accessToken(issuer: issuer), signer: rsa, keys: ring,
                type: "at+jwt", claims: own),
            Use(name: "id_token_hint", policy: BrokerJWTPolicies.idTokenHint(issuer: issuer), signer: rsa, keys: ring,
                type: "JWT", claims: own),
            Use(name: "software statement", policy: BrokerJWTPolicies.softwareStatement(issuer: "https://vendor.example.com"),
                signer: vendor, keys: PublishedKeys(set: JSONWebKeySet(keys: [vendor.publicKey])),
                type: nil, claims: ["iss": "https://vendor.example.com", "exp": t + 600, "iat": t, "redirect_uris": ["app:/cb"]]),
            Use(name: "client assertion (private_key_jwt)", policy: ClientAssertion.policy(clientId: "kid_backend"), signer: vendor,
                keys: PublishedKeys(set: JSONWebKeySet(keys: [vendor.publicKey])), type: nil,
                claims: ["iss": "kid_backend", "sub": "kid_backend", "aud": issuer + "/oauth/token", "exp": t + 60, "jti": "a1"]),
            Use(name: "upstream id_token", policy: validator.policy, signer: upstream,
                keys: JSONWebKeySet(keys: [upstream.publicKey]), type: "JWT",
                claims: ["iss": "https://idp.example.com", "sub": "x", "aud": "broker", "exp": t + 600, "iat": t]),
        ]
    }

    /// A token with `header` (alg and kid added unless given) and `claims`, signed by `key`.
    static func token(_ use: Use, header extra: [String: Any] = [:], claims: [String: Any]? = nil, signer: SigningKey? = nil) -> String {
        let key = signer ?? use.signer
        var header: [String: Any] = ["alg": key.algorithm.rawValue, "kid": key.kid]
        if let type = use.type { header["typ"] = type }
        for (name, value) in extra { header[name] = value is NSNull ? nil : value }
        let input = encode(header) + "." + encode(claims ?? use.claims)
        return input + "." + Base64URL.encode(try! key.sign(Data(input.utf8)))
    }

    static func encode(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func changed(_ use: Use, _ changes: [String: Any?]) -> [String: Any] {
        var claims = use.claims
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func verdict(_ use: Use, _ token: String) -> JWTRejection? {
        do {
            _ = try JWTVerifier.verify(token, keys: use.keys, policy: use.policy, now: now)
            return nil
        } catch { return error }
    }

    @Test("a genuine token of each use passes its policy", arguments: uses)
    func genuine(_ use: Use) {
        #expect(Self.verdict(use, Self.token(use)) == nil)
    }

    @Test("alg none, HMAC keyed with the public key, and alg confusion are refused by every use", arguments: uses)
    func algorithms(_ use: Use) throws {
        let t = Self.token(use)
        let parts = t.split(separator: ".")
        func withHeader(_ header: [String: Any], signature: Data) -> String {
            let input = Self.encode(header) + "." + parts[1]
            return input + "." + Base64URL.encode(signature)
        }
        #expect(Self.verdict(use, withHeader(["alg": "none", "typ": use.type ?? "JWT"], signature: Data())) == .algorithmNotAllowed("none"))
        #expect(Self.verdict(use, String(t.prefix { $0 != "." }) + "." + parts[1] + ".") != nil)
        // HS256 "signed" with the public key as the HMAC secret: the classic confusion attack.
        let publicBytes = try JSONSerialization.data(withJSONObject: use.signer.publicKey.publicFields, options: [.sortedKeys])
        let hsHeader: [String: Any] = ["alg": "HS256", "kid": use.signer.kid, "typ": use.type ?? "JWT"]
        let hsInput = Self.encode(hsHeader) + "." + parts[1]
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: SymmetricKey(data: publicBytes)))
        #expect(Self.verdict(use, hsInput + "." + Base64URL.encode(mac)) == .algorithmNotAllowed("HS256"))
        // The header names an algorithm of the other family than the key's.
        let other: JOSEAlgorithm = use.signer.algorithm == .rs256 ? .es256 : .rs256
        let confused = Self.token(use, header: ["alg": other.rawValue])
        let rejection = Self.verdict(use, confused)
        #expect(rejection == .noMatchingKey(kid: use.signer.kid) || rejection == .algorithmNotAllowed(other.rawValue), "\(String(describing: rejection))")
        // Signed by a key the use does not trust, under the trusted kid.
        let stranger = try SigningKey(kid: use.signer.kid, algorithm: use.signer.algorithm,
                                      pem: use.signer.algorithm == .es256 ? try SigningKey.generate(.es256).pem : Self.strangerRSA)
        let forged = Self.token(use, signer: stranger)
        #expect([JWTRejection.badSignature, .noMatchingKey(kid: use.signer.kid)].contains(Self.verdict(use, forged) ?? .malformed))
    }

    @Test("an unknown crit, a wrong typ, a nested JWT and an oversized token are refused by every use", arguments: uses)
    func header(_ use: Use) {
        #expect(Self.verdict(use, Self.token(use, header: ["crit": ["exp-x"], "exp-x": 1])) == .criticalHeader)
        #expect(Self.verdict(use, Self.token(use, header: ["crit": []])) == .criticalHeader)
        #expect(Self.verdict(use, Self.token(use, header: ["typ": "logout+jwt"])) == .wrongType("logout+jwt"))
        #expect(Self.verdict(use, Self.token(use, header: ["typ": 7])) == .wrongType(nil))
        #expect(Self.verdict(use, Self.token(use, header: ["cty": "JWT"])) == .nested)
        let padding = String(repeating: "x", count: use.policy.maxLength)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["pad": padding]))) == .tooLong(limit: use.policy.maxLength))
        #expect(Self.verdict(use, "not.a.jwt") == .malformed)
        #expect(Self.verdict(use, "") == .malformed)
    }

    @Test("missing, malformed, expired and future time claims, and a wrong issuer, are refused by every use", arguments: uses)
    func claims(_ use: Use) {
        let t = Int(Self.now.timeIntervalSince1970)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["exp": nil]))) == .missingClaim("exp"))
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["exp": "tomorrow"]))) == .malformedClaim("exp"))
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["nbf": t + 3600]))) == .notYetValid)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["iat": t + 3600]))) == .issuedInTheFuture)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["nbf": true]))) == .malformedClaim("nbf"))
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["iss": "https://evil.example.com"]))) == .wrongIssuer)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["iss": 42]))) == .malformedClaim("iss"))
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["iss": nil]))) == .missingClaim("iss"))
        // Within the skew, future claims pass: clocks differ by seconds.
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["iat": t + 30, "nbf": t + 30]))) == nil)
        let expired = Self.verdict(use, Self.token(use, claims: Self.changed(use, ["exp": t - 3600])))
        switch use.policy.expiry {
        case .enforced: #expect(expired == .expired)
        // The access token's expiry is checked on every use by the caller (TokenVerifier), an
        // id_token_hint may be expired (RP-Initiated Logout §2).
        case .ignored: #expect(expired == nil)
        }
        var header: [String: Any] = ["alg": use.signer.algorithm.rawValue, "kid": use.signer.kid]
        if let type = use.type { header["typ"] = type }
        let arrayPayload = Self.encode(header) + "." + Base64URL.encode(Data("[1]".utf8))
        #expect(Self.verdict(use, arrayPayload + "." + Base64URL.encode(try! use.signer.sign(Data(arrayPayload.utf8)))) == .payloadNotAnObject)
    }

    @Test("client_secret_jwt: HS256 with the client's secret only; none, an asymmetric alg, another secret, crit, cty JWT and stale claims refused")
    func sharedSecret() throws {
        let secret = Data(String(repeating: "k", count: 32).utf8)
        let policy = ClientAssertion.policy(clientId: "kid_backend")
        let t = Int(Self.now.timeIntervalSince1970)
        let claims: [String: Any] = ["iss": "kid_backend", "sub": "kid_backend", "aud": Self.issuer, "exp": t + 60, "jti": "s1"]
        func hs(_ header: [String: Any], _ claims: [String: Any], key: Data = secret) -> String {
            let input = Self.encode(header) + "." + Self.encode(claims)
            return input + "." + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: key))))
        }
        func verdict(_ token: String) -> JWTRejection? {
            do {
                _ = try SharedSecretJWT.verify(token, secret: secret, policy: policy, now: Self.now)
                return nil
            } catch { return error }
        }
        #expect(verdict(SharedSecretJWT.sign(payload: try JSONSerialization.data(withJSONObject: claims), secret: secret)) == nil)
        #expect(verdict(hs(["alg": "HS256"], claims)) == nil)
        #expect(verdict(hs(["alg": "none"], claims)) == .algorithmNotAllowed("none"))
        #expect(verdict(hs(["alg": "RS256"], claims)) == .algorithmNotAllowed("RS256"))
        #expect(verdict(hs(["alg": "HS512"], claims)) == .algorithmNotAllowed("HS512"))
        #expect(verdict(hs(["alg": "HS256"], claims, key: Data("another-secret-of-32-characters!".utf8))) == .badSignature)
        #expect(verdict(hs(["alg": "HS256", "crit": ["x"]], claims)) == .criticalHeader)
        #expect(verdict(hs(["alg": "HS256", "cty": "JWT"], claims)) == .nested)
        #expect(verdict(hs(["alg": "HS256", "typ": "at+jwt"], claims)) == .wrongType("at+jwt"))
        var changed = claims
        changed["exp"] = t - 3600
        #expect(verdict(hs(["alg": "HS256"], changed)) == .expired)
        changed = claims
        changed["iss"] = "kid_other"
        #expect(verdict(hs(["alg": "HS256"], changed)) == .wrongIssuer)
        #expect(verdict(String(hs(["alg": "HS256"], claims).dropLast(2))) != nil)
    }

    @Test("the upstream id_token's audience must name the broker's client")
    func audience() throws {
        let use = try #require(Self.uses.last)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["aud": "someone-else"]))) == .wrongAudience)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["aud": ["a", "broker"]]))) == nil)
        #expect(Self.verdict(use, Self.token(use, claims: Self.changed(use, ["aud": 5]))) == .malformedClaim("aud"))
    }
}
