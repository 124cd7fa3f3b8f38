import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// Sign-in through real SAML IdPs (pysaml2, SimpleSAMLphp) started by scripts/test.sh, both
/// request bindings, signed requests and encrypted assertions (docs/connectors/saml.md).
@Suite("saml-redirect / saml-post against real IdPs")
struct SAMLPeerTests {
    static let skip = "IDCONNECT_SAML_P2_METADATA / IDCONNECT_SAML_SSP_METADATA unset: scripts/test.sh starts the SAML IdPs"
    static var peersConfigured: Bool {
        ProcessInfo.processInfo.environment["IDCONNECT_SAML_P2_METADATA"] != nil
            && ProcessInfo.processInfo.environment["IDCONNECT_SAML_SSP_METADATA"] != nil
    }

    static func peers() async throws -> (pysaml2: SAMLPeer, ssp: SAMLPeer) {
        (try #require(try await SAMLPeer.load("IDCONNECT_SAML_P2_METADATA")),
         try #require(try await SAMLPeer.load("IDCONNECT_SAML_SSP_METADATA")))
    }

    static var spKeyOptions: [String] {
        ["spPrivateKey: ${file:\(SAMLPeerFixture.spKeyPath ?? "")}", "spCertificate: ${file:\(SAMLPeerFixture.spCertPath ?? "")}"]
    }

    @Test("both IdPs, both bindings: alice signs in; NameID, attributes and the assertion reach the token view",
          .enabled(if: peersConfigured, Comment(rawValue: skip)))
    func signIn() async throws {
        let (pysaml2, ssp) = try await Self.peers()
        let broker = try await SAMLPeerFixture.broker([
            SAMLPeerFixture.service("p2-redirect", pysaml2, type: "saml-redirect"),
            SAMLPeerFixture.service("p2-post", pysaml2, type: "saml-post"),
            SAMLPeerFixture.service("ssp-redirect", ssp, type: "saml-redirect"),
            SAMLPeerFixture.service("ssp-post", ssp, type: "saml-post"),
        ])
        try await broker.withClient { client in
            for service in ["p2-redirect", "p2-post", "ssp-redirect", "ssp-post"] {
                let (tokens, view) = try await SAMLPeerFixture.signIn(client, authService: service)
                #expect(view["id"] as? String == "alice@example.org", "\(service)")
                #expect(view["email"] as? String == "alice@example.org", "\(service)")
                #expect(view["name"] as? String == "Alice Liddell", "\(service)")
                #expect((view["groups"] as? [String])?.contains("staff") == true, "\(service)")
                let clientToken = try #require(view["client_token"] as? String)
                let assertion = String(decoding: try #require(Data(base64Encoded: clientToken)), as: UTF8.self)
                #expect(assertion.contains("Assertion") && assertion.contains("alice@example.org"), "\(service)")
                let idToken = try #require(tokens["id_token"] as? String)
                #expect(!idToken.isEmpty)
            }
        }
    }

    @Test("signed AuthnRequests (query signature and enveloped) are accepted by the pysaml2 IdP, which checks them",
          .enabled(if: peersConfigured, Comment(rawValue: skip)))
    func signedRequests() async throws {
        let (pysaml2, _) = try await Self.peers()
        let signing = Self.spKeyOptions + ["signRequests: true"]
        let broker = try await SAMLPeerFixture.broker([
            SAMLPeerFixture.service("signed-redirect", pysaml2, type: "saml-redirect", extra: signing),
            SAMLPeerFixture.service("signed-post", pysaml2, type: "saml-post", extra: signing),
        ])
        try await broker.withClient { client in
            for service in ["signed-redirect", "signed-post"] {
                let view = try await SAMLPeerFixture.signIn(client, authService: service).view
                #expect(view["id"] as? String == "alice@example.org", "\(service)")
            }
        }
    }

    @Test("EncryptedAssertion (AES-GCM and AES-CBC with RSA-OAEP) is decrypted with the SP key",
          .enabled(if: peersConfigured, Comment(rawValue: skip)))
    func encryptedAssertions() async throws {
        let (pysaml2, _) = try await Self.peers()
        var services: [String] = []
        for cipher in ["aes128-gcm", "aes256-cbc"] {
            let peer = try await SAMLPeer.load(metadata: "http://127.0.0.1:8490/enc/\(cipher)/metadata")
            services.append(SAMLPeerFixture.service("enc-\(cipher)", peer, type: "saml-post", extra: Self.spKeyOptions))
        }
        let encrypting = try await SAMLPeer.load(metadata: "http://127.0.0.1:8490/enc/aes128-gcm/metadata")
        services.append(SAMLPeerFixture.service("enc-nokey", encrypting, type: "saml-post"))
        #expect(pysaml2.postSSO != encrypting.postSSO)
        let broker = try await SAMLPeerFixture.broker(services)
        try await broker.withClient { client in
            for cipher in ["aes128-gcm", "aes256-cbc"] {
                let fields = try await SAMLPeerFixture.responseFields(client, authService: "enc-\(cipher)")
                let xml = String(decoding: Data(base64Encoded: try #require(fields.first { $0.0 == "SAMLResponse" }?.1)) ?? Data(), as: UTF8.self)
                #expect(xml.contains("EncryptedAssertion"))
                let answer = try await SAMLPeerFixture.postToACS(client, fields)
                let location = try #require(answer.location)
                #expect(queryItems(location)["code"] != nil, "\(cipher): \(location)")
            }
            // Without the SP key the broker cannot read it, and says so.
            let refused = try await SAMLPeerFixture.postToACS(client, try await SAMLPeerFixture.responseFields(client, authService: "enc-nokey"))
            let location = try #require(refused.location)
            #expect(queryItems(location)["error"] == "access_denied")
            #expect(queryItems(location)["error_description"]?.contains("encrypted") == true)
        }
    }

    @Test("SP metadata at /saml/metadata, /v2/saml/metadata and /saml/{id}/metadata; unknown id → 404",
          .enabled(if: peersConfigured, Comment(rawValue: skip)))
    func metadata() async throws {
        let (pysaml2, _) = try await Self.peers()
        let broker = try await SAMLPeerFixture.broker([
            SAMLPeerFixture.service("with-keys", pysaml2, type: "saml-post", extra: Self.spKeyOptions + ["signRequests: true"]),
        ])
        try await broker.withClient { client in
            for path in ["/saml/metadata", "/v2/saml/metadata", "/saml/with-keys/metadata"] {
                let answer = try await client.get(path)
                #expect(answer.status == .ok, "\(path)")
                #expect(answer.headers[.contentType] == "application/samlmetadata+xml")
                #expect(answer.text.contains(#"entityID="http://127.0.0.1:8080/saml/metadata""#))
                #expect(answer.text.contains(#"Location="http://127.0.0.1:8080/saml/acs""#))
                #expect(answer.text.contains(#"AuthnRequestsSigned="true""#))
                #expect(answer.text.contains("X509Certificate"))
            }
            #expect(try await client.get("/saml/nope/metadata").status == .notFound)
        }
    }
}

