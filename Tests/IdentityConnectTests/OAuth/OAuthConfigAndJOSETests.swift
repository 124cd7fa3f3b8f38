import Crypto
import CryptoExtras
import Foundation
import IdentityApp
import IdentityCore
import JOSE
import Testing

@Suite("oauth2 / openid-connect options and the JOSE verifier")
struct OAuthConfigAndJOSETests {
    static func problems(_ services: String) async throws -> [String] {
        do {
            _ = try await TestBroker.make(files: OAuthPeerFixture.files(services), registry: OAuthPeerFixture.registry)
            return []
        } catch let problems as ConfigProblems {
            return problems.problems.map(\.description)
        }
    }

    @Test("bad options are reported per key, all at once")
    func optionProblems() async throws {
        let oidc = try await Self.problems(OAuthPeerFixture.service("o", type: "openid-connect", options: """
            clientSecret: x, allowedAlgorithms: [ RS256, none, HS256, XX512 ], grantType: implicit, clockSkew: 9999, scope: [ profile ],
            userIdAttribute: "a..b", clientSecet: typo
            """))
        for expected in ["options.clientId: is required", "options.issuerId: is required", "'none' is never accepted",
                         "HS256 is never accepted", "unsupported algorithm 'XX512'", "options.grantType: must be authorization_code or password",
                         "options.clockSkew: must be 0 to 600", "options.userIdAttribute: must be", "options.clientSecet: unknown key"] {
            #expect(oidc.contains { $0.contains(expected) }, "\(expected) not in \(oidc)")
        }
        let oauth2 = try await Self.problems(OAuthPeerFixture.service("p", type: "oauth2", options: """
            clientId: c, issuerId: "https://idp.example.com", userIdEndpoint: "not a url"
            """))
        for expected in ["remoteService", "grantEndpoint", "options.issuerId: applies to openid-connect only", "options.userIdEndpoint: must be"] {
            #expect(oauth2.contains { $0.contains(expected) }, "\(expected) not in \(oauth2)")
        }
        let good = try await Self.problems(OAuthPeerFixture.service("g", type: "openid-connect", options: """
            issuerId: "https://idp.example.com", clientId: c, allowedAlgorithms: [ ES256, PS256 ]
            """))
        #expect(good.isEmpty, "\(good)")
    }

    static func verify(_ token: String, _ jwks: [[String: String]], allowed: Set<JOSEAlgorithm> = JOSEAlgorithm.defaultAllowed) -> JWTRejection? {
        let data = try! JSONSerialization.data(withJSONObject: ["keys": jwks])
        let set = JSONWebKeySet(parsing: data)!
        let policy = JWTPolicy(use: "test", algorithms: allowed, types: ["JWT"], typeMayBeAbsent: true, requiredClaims: [],
                               expiry: .ignored, maxLength: 32_768)
        do {
            _ = try JWTVerifier.verify(token, keys: set, policy: policy, now: Date())
            return nil
        } catch { return error }
    }

    @Test("every allowed algorithm verifies, and only with a fitting key")
    func algorithms() throws {
        let rsa = UpstreamTestKeys.rsa
        let p384 = P384.Signing.PrivateKey()
        let raw384 = p384.publicKey.rawRepresentation
        let ecJWK = ["kty": "EC", "crv": "P-384", "x": Base64URL.encode(raw384.prefix(48)), "y": Base64URL.encode(raw384.suffix(48)), "kid": "p384"]
        let rsaJWK = UpstreamTestKeys.jwk(rsa, kid: "k1")
        let claims: [String: Any] = ["sub": "x"]
        func rsaToken(_ alg: String, padding: _RSA.Signing.Padding = .insecurePKCS1v1_5) -> String {
            Mint.token(header: ["alg": alg, "kid": "k1"], claims: claims) { input in
                switch alg {
                case "RS384": try! rsa.signature(for: SHA384.hash(data: input), padding: padding).rawRepresentation
                case "RS512": try! rsa.signature(for: SHA512.hash(data: input), padding: padding).rawRepresentation
                default: try! rsa.signature(for: SHA256.hash(data: input), padding: padding).rawRepresentation
                }
            }
        }
        #expect(Self.verify(rsaToken("RS256"), [rsaJWK]) == nil)
        #expect(Self.verify(rsaToken("RS384"), [rsaJWK]) == nil)
        #expect(Self.verify(rsaToken("RS512"), [rsaJWK]) == nil)
        #expect(Self.verify(Mint.ps256(claims), [rsaJWK]) == nil)
        let es384 = Mint.token(header: ["alg": "ES384", "kid": "p384"], claims: claims) { try! p384.signature(for: $0).rawRepresentation }
        #expect(Self.verify(es384, [ecJWK]) == nil)

        // A signature made for one algorithm does not pass as another.
        let relabelled = rsaToken("RS256").replacingOccurrences(of: Base64URL.encode(Data(#"{"alg":"RS256","kid":"k1"}"#.utf8)),
                                                                                           with: Base64URL.encode(Data(#"{"alg":"RS384","kid":"k1"}"#.utf8)))
        #expect(Self.verify(relabelled, [rsaJWK]) == .badSignature)
        // Not on the allow-list.
        #expect(Self.verify(Mint.ps256(claims), [rsaJWK], allowed: [.rs256]) == .algorithmNotAllowed("PS256"))
        // A key restricted to another alg, an encryption key, an EC key for an RSA alg: no candidate.
        var restricted = rsaJWK
        restricted["alg"] = "RS512"
        #expect(Self.verify(Mint.rs256(claims), [restricted]) == .noMatchingKey(kid: "k1"))
        var encryption = rsaJWK
        encryption["use"] = "enc"
        #expect(Self.verify(Mint.rs256(claims), [encryption]) == .noMatchingKey(kid: "k1"))
        #expect(Self.verify(Mint.rs256(claims, kid: "p384"), [ecJWK]) == .noMatchingKey(kid: "p384"))
        // A symmetric key in a JWKS is never usable.
        #expect(Self.verify(Mint.rs256(claims), [["kty": "oct", "k": "c2VjcmV0", "kid": "k1"]]) == .noMatchingKey(kid: "k1"))
        for name in ["none", "HS256", "HS512", "hs384", "NONE"] {
            #expect(throws: Never.self) {
                if case .success = JOSEAlgorithm.parseAllowed(name) { Issue.record("\(name) accepted") }
            }
            #expect(JOSEAlgorithm(rawValue: name) == nil)
        }
        #expect(CompactJWS.decode("a.b") == nil)
        #expect(CompactJWS.decode("!!.e30.") == nil)
        #expect(CompactJWS.decode(String(repeating: "a", count: 40_000) + ".e30.x", maxLength: 32_768) == nil)
    }
}
