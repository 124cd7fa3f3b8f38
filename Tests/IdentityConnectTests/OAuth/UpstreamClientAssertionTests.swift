import ConnectorHTTP
import Crypto
import Foundation
import IdentityCore
import JOSE
@testable import OAuthConnectors
@testable import OAuthEngine
import Testing

/// `clientAuth: private_key_jwt` toward an identity source (docs/connectors/oauth2-oidc.md):
/// the options' mistakes, and the assertion the broker sends — one a provider following RFC 7523
/// accepts (the end-to-end test against Glewlwyd is scripts/upstream-client-auth-check.py).
@Suite("oauth2 / openid-connect: private_key_jwt toward the provider")
struct UpstreamClientAssertionTests {
    @Test("an unknown method, no key, a key that is no PEM, a secret beside the key, key options without the method")
    func problems() async throws {
        let remote = "https://idp.example.com/token"
        func problems(_ options: String) async throws -> [String] {
            try await OAuthConfigAndJOSETests.problems(OAuthPeerFixture.service("p", type: "oauth2", remoteService: remote,
                                                                                options: "clientId: c, grantType: password, " + options))
        }
        #expect(try await problems("clientAuth: mtls").contains { $0.contains("options.clientAuth: must be client_secret or private_key_jwt") })
        #expect(try await problems("clientAuth: private_key_jwt").contains { $0.contains("options.privateKey: is required") })
        #expect(try await problems("clientAuth: private_key_jwt, privateKey: \"not a key\"")
            .contains { $0.contains("options.privateKey: must be a PEM private key") })
        let pem = try P256PEM.make().replacingOccurrences(of: "\n", with: "\\n")
        #expect(try await problems("clientAuth: private_key_jwt, privateKey: \"\(pem)\", clientSecret: s")
            .contains { $0.contains("options.clientSecret: is never sent with clientAuth: private_key_jwt") })
        #expect(try await problems("privateKeyId: k1").contains { $0.contains("options.privateKeyId: applies to clientAuth: private_key_jwt only") })
        #expect(try await problems("clientAuth: private_key_jwt, privateKey: \"\(pem)\"").isEmpty)
    }

    @Test("each token request carries client_id and a new assertion: iss = sub = the client, aud the token endpoint, a minute of life, no secret")
    func assertion() throws {
        let key = try SigningKey(kid: "k1", algorithm: .es256, pem: try P256PEM.make())
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let client = TokenEndpointClient(clientId: "broker", clientSecret: nil, includeClientId: false, includeClientSecret: false,
                                         assertionKey: key, clock: clock, http: UpstreamHTTP())
        let url = "https://idp.example.com/oauth2/token"
        let first = try client.authentication(for: url), second = try client.authentication(for: url)
        #expect(first.headers.isEmpty)
        let fields = Dictionary(uniqueKeysWithValues: first.fields)
        #expect(fields["client_id"] == "broker" && fields["client_secret"] == nil)
        #expect(fields["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        let assertion = try #require(fields["client_assertion"])
        var policy = ClientAssertion.policy(clientId: "broker")
        policy.audience = url
        let verified = try JWTVerifier.verify(assertion, keys: JSONWebKeySet(keys: [key.publicKey]), policy: policy, now: clock.now())
        #expect(verified.claims["sub"] == .string("broker"))
        #expect(verified.claims["exp"]?.numberValue == 1_800_000_060)
        #expect(verified.header["kid"] == .string("k1"))
        #expect(Dictionary(uniqueKeysWithValues: second.fields)["client_assertion"] != assertion, "a new jti each time")
    }
}

/// A fresh EC P-256 private key as PKCS#8 PEM.
enum P256PEM {
    static func make() throws -> String { P256.Signing.PrivateKey().pemRepresentation }
}
