import Crypto
import CryptoExtras
import Foundation
import HummingbirdTesting
import IdentityApp
import IdentityCore
@testable import SAMLConnector
import Testing

/// Options of `saml-redirect` / `saml-post`, and what the broker sends the IdP (no peer needed).
@Suite("SAML options, AuthnRequests and metadata")
struct SAMLConfigTests {
    static func problems(_ provider: String) async throws -> [String] {
        var files = TestBroker.defaultConfig()
        files["environments/saml.yaml"] = """
        environments:
          - appKey: kid_saml
            appSecret: saml-env-secret
            authServices:
              - id: s
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider:
        \(provider)
        """
        do {
            _ = try await TestBroker.make(files: files, registry: SAMLPeerFixture.registry)
            return []
        } catch let problems as ConfigProblems {
            return problems.problems.map(\.description)
        }
    }

    static func certificateBlock(_ pem: String, indent: Int = 14) -> String {
        pem.split(separator: "\n").map { String(repeating: " ", count: indent) + $0 }.joined(separator: "\n")
    }

    /// A PEM block indented for a YAML block scalar under a list item of `options`.
    static func indented(_ pem: String) -> String {
        pem.split(separator: "\n").map { "                " + $0 }.joined(separator: "\n")
    }

    @Test("bad options are reported per key, all at once; a good one loads")
    func optionProblems() async throws {
        let bad = try await Self.problems("""
                  type: saml-post
                  remoteService: "not a url"
                  authentication: { username: x, password: y }
                  options:
                    idpCertificate: "not a certificate"
                    nameIdFormat: email
                    signRequests: true
                    spPrivateKey: "-----BEGIN PRIVATE KEY-----\\nnope\\n-----END PRIVATE KEY-----"
                    clockSkew: 9999
                    wantAssertionSigned: false
                    logoutBinding: soap
                    idpMetadataUrl: "http://idp.example.org/metadata"
                    metadataRefresh: 5
        """)
        for expected in ["remoteService: must be the IdP's single sign-on URL", "does not use authentication",
                         "idpCertificate: entry 1 is not a PEM certificate", "nameIdFormat: must be", "spPrivateKey: is not",
                         "signRequests: needs spPrivateKey and spCertificate", "clockSkew: must be 0 to 600",
                         "wantAssertionSigned: unknown key", "logoutBinding: must be redirect or post",
                         "idpMetadataUrl: must be an https URL (http only on loopback)", "metadataRefresh: must be 60 to 2592000 seconds"] {
            #expect(bad.contains { $0.contains(expected) }, "\(expected) not in \(bad)")
        }
        let missing = try await Self.problems("""
                  type: saml-redirect
                  remoteService: "https://idp.example.org/sso"
                  options: { nameIdFormat: persistent }
        """)
        #expect(missing.contains { $0.contains("idpCertificate: is required") }, "\(missing)")
        let weak = try await Self.problems("""
                  type: saml-redirect
                  remoteService: "https://idp.example.org/sso"
                  options:
                    idpCertificate:
                      - |
        \(Self.indented(TestKeyPair.idp.certificatePEM))
                      - |
        \(Self.indented(TestKeyPair.weak.certificatePEM))
        """)
        #expect(weak.contains { $0.contains("idpCertificate: entry 2 has an RSA key under 2048 bits") }, "\(weak)")
        #expect(weak.count == 1, "\(weak)")
        let good = try await Self.problems("""
                  type: saml-redirect
                  remoteService: "https://idp.example.org/sso"
                  options:
                    idpCertificate: |
        \(Self.certificateBlock(TestKeyPair.idp.certificatePEM))
        """)
        #expect(good.isEmpty, "\(good)")

        // IdP metadata: an inline document replaces remoteService and idpCertificate; its problems
        // and conflicting options are named by key.
        let inline = IdPMetadataBuilder().xml.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(try await Self.problems("""
                  type: saml-post
                  options: { idpMetadata: "\(inline)" }
        """).isEmpty)
        let conflicting = try await Self.problems("""
                  type: saml-post
                  options:
                    idpMetadata: "\(inline.replacingOccurrences(of: "https://idp.example.org/sso/post", with: "ftp://x"))"
                    idpMetadataUrl: https://idp.example.org/metadata
                    idpMetadataCertificate: "not a certificate"
        """)
        for expected in ["idpMetadata: use idpMetadataUrl or idpMetadata, not both", "idpMetadataCertificate: entry 1 is not a PEM certificate"] {
            #expect(conflicting.contains { $0.contains(expected) }, "\(expected) not in \(conflicting)")
        }
        let broken = try await Self.problems("""
                  type: saml-post
                  options: { idpMetadata: "\(inline.replacingOccurrences(of: "https://idp.example.org/sso/post", with: "ftp://x"))" }
        """)
        #expect(broken.contains { $0.contains("provider.options.idpMetadata: SingleSignOnService has a Location that is not an absolute http(s) URL") },
                "\(broken)")
        let orphan = try await Self.problems("""
                  type: saml-post
                  remoteService: https://idp.example.org/sso
                  options: { idpCertificate: "x", idpMetadataCertificate: "y" }
        """)
        #expect(orphan.contains { $0.contains("idpMetadataCertificate: needs idpMetadataUrl or idpMetadata") }, "\(orphan)")
    }

    static func options(binding: SAMLOptions.Binding = .redirect) -> SAMLOptions {
        SAMLOptions(binding: binding, ssoURL: "https://idp.example.org/sso?tenant=1", idpCertificates: [TestKeyPair.idp.certificatePEM],
                    logoutURI: nil, metadata: nil, nameIDFormat: SAMLOptions.nameIDFormats["emailAddress"]!, spEntityID: SAMLResponseBuilder.sp,
                    assertionConsumerURL: SAMLResponseBuilder.acs, singleLogoutURL: SAMLResponseBuilder.slo, signRequests: true,
                    spPrivateKey: TestKeyPair.sp.privateKeyPEM, spCertificate: TestKeyPair.sp.certificatePEM, wantAssertionsSigned: true,
                    allowSHA1: false, clockSkew: 60)
    }

    @Test("HTTP-Redirect: DEFLATE + base64 request that inflates back, RelayState, and a query signature that verifies")
    func redirectBinding() throws {
        let request = SAMLAuthnRequest(id: "_abc", issueInstant: Date(timeIntervalSince1970: 1_900_000_000), options: Self.options(),
                                       destination: "https://idp.example.org/sso?tenant=1", forceAuthn: true)
        let url = try request.redirectURL(relayState: "relay&state", signingKey: try .init(pemRepresentation: TestKeyPair.sp.privateKeyPEM))
        #expect(url.hasPrefix("https://idp.example.org/sso?tenant=1&SAMLRequest="))
        let items = queryItems(url)
        #expect(items["RelayState"] == "relay&state")
        #expect(items["SigAlg"] == "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256")
        let samlRequest = try #require(items["SAMLRequest"])
        let deflated = try #require(Data(base64Encoded: samlRequest))
        let xml = String(decoding: Self.inflateStored(Array(deflated)), as: UTF8.self)
        #expect(xml == request.xml)
        #expect(xml.contains(#"ForceAuthn="true""#) && xml.contains(#"AssertionConsumerServiceURL="http://127.0.0.1:8080/saml/acs""#))
        // The signature covers the query as sent, up to and including SigAlg.
        let query = try #require(URLComponents(string: url)?.percentEncodedQuery)
        let signed = String(query[query.range(of: "SAMLRequest=")!.lowerBound..<query.range(of: "&Signature=")!.lowerBound])
        let signatureText = try #require(items["Signature"])
        let signature = try #require(Data(base64Encoded: signatureText))
        let publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: TestKeyPair.sp.privateKeyPEM).publicKey
        #expect(publicKey.isValidSignature(.init(rawRepresentation: signature), for: SHA256.hash(data: Data(signed.utf8)),
                                           padding: .insecurePKCS1v1_5))
    }

    @Test("HTTP-POST: the request carries an enveloped signature that verifies with the SP certificate")
    func postBinding() throws {
        let request = SAMLAuthnRequest(id: "_post", issueInstant: Date(), options: Self.options(binding: .post),
                                       destination: "https://idp.example.org/sso?tenant=1", forceAuthn: false)
        let value = try request.postValue(signingKey: try XMLSecurityKey(privateKeyPEM: TestKeyPair.sp.privateKeyPEM))
        let xml = try #require(Data(base64Encoded: value))
        let document = try XMLDocument(parsing: xml)
        let verifier = XMLSignatureVerifier(keys: [try XMLSecurityKey(certificatePEM: TestKeyPair.sp.certificatePEM)], allowSHA1: false)
        #expect(try verifier.verify(try #require(document.root), in: document) == .valid)
        let unsigned = try request.postValue(signingKey: nil)
        #expect(String(decoding: Data(base64Encoded: unsigned)!, as: UTF8.self) == request.xml)
    }

    @Test("SP metadata names the entity, the ACS, the SLO endpoint, the NameID format and the SP certificate for signing and encryption")
    func metadata() throws {
        let xml = SAMLMetadata.document(Self.options())
        _ = try XMLDocument(parsing: Data(xml.utf8))
        #expect(xml.contains(#"entityID="http://127.0.0.1:8080/saml/metadata""#))
        for binding in ["HTTP-Redirect", "HTTP-POST"] {
            #expect(xml.contains(#"<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:\#(binding)" Location="http://127.0.0.1:8080/saml/slo"/>"#))
        }
        #expect(xml.contains(#"use="signing""#) && xml.contains(#"use="encryption""#))
        #expect(xml.contains("urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"))
    }

    /// Inflates the stored blocks ``Deflate/stored(_:)`` writes (enough to check it).
    static func inflateStored(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        while offset + 5 <= bytes.count {
            let final = bytes[offset] & 1 == 1
            let length = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8
            output += bytes[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if final { break }
        }
        return output
    }
}
