import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import Testing

/// Hostile EncryptedAssertions, built from real encrypted Responses of the pysaml2 IdP with the
/// Response signature removed, so that nothing but the broker's own checks stands between the
/// ciphertext and xmlsec: nothing may be fetched, no foreign key or algorithm used, and every
/// failure before the inner signature verifies gets the same answer (no decryption oracle).
@Suite("SAML encrypted assertions: hostile variants")
struct SAMLEncryptedHostileTests {
    static let uniform = "could not be decrypted and verified"
    static let responseSignature = #"<(\w+:)?Signature[\s>][\s\S]*?</\1Signature>"#
    static let keyInfoOpen = #"(<(\w+:)?KeyInfo[^>]*>)"#
    static let lastCipherValue = #"([\s\S]*<(\w+:)?CipherValue>)[^<]*(</)"#

    @Test("RetrievalMethod and CipherReference are never fetched; KeyValue, RSA 1.5 and broken ciphertext get one answer",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func hostileEncryption() async throws {
        let peer = try await SAMLPeer.load(metadata: "http://127.0.0.1:8490/enc/aes256-cbc/metadata")
        let broker = try await SAMLPeerFixture.broker([
            SAMLPeerFixture.service("enc", peer, type: "saml-post", extra: SAMLPeerTests.spKeyOptions)])
        let fetched = CallLog()
        let router = Router()
        router.get("**") { request, _ in fetched.record(request, body: Data()); return "<x/>" }
        try await TestHTTPServer.with(router) { listener in
            try await broker.withClient { client in
                /// A fresh encrypted Response with its outer signature removed (the assertion inside stays signed).
                func capture() async throws -> SAMLHostileTests.Captured {
                    var captured = try await SAMLHostileTests.capture(client, service: "enc")
                    #expect(captured.xml.contains("EncryptedAssertion"))
                    captured.xml = captured.replacing(Self.responseSignature, with: "")
                    return captured
                }
                // Baseline: without the Response signature it still signs in, on the inner signature alone.
                let baseline = try await SAMLPeerFixture.postToACS(client, try await capture().fields)
                #expect(queryItems(try #require(baseline.location))["code"] != nil, "baseline: \(baseline.location ?? "")")

                let dsig = "xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\""
                let xenc = "xmlns:xenc=\"http://www.w3.org/2001/04/xmlenc#\""
                typealias Variant = @Sendable (SAMLHostileTests.Captured) -> String
                let variants: [(String, Variant)] = [
                    ("RetrievalMethod", { $0.replacing(Self.keyInfoOpen, with:
                        "$1<ds:RetrievalMethod \(dsig) URI=\"\(listener)/retrieval\" Type=\"http://www.w3.org/2001/04/xmlenc#EncryptedKey\"/>") }),
                    ("RetrievalMethod to a file", { $0.replacing(Self.keyInfoOpen, with:
                        "$1<ds:RetrievalMethod \(dsig) URI=\"file:///etc/passwd\"/>") }),
                    ("CipherReference", { $0.replacing(#"([\s\S]*)<(\w+:)?CipherData>[\s\S]*?</\2CipherData>"#, with:
                        "$1<xenc:CipherData \(xenc)><xenc:CipherReference URI=\"\(listener)/cipher\"/></xenc:CipherData>") }),
                    ("KeyValue", { $0.replacing(Self.keyInfoOpen, with:
                        "$1<ds:KeyValue \(dsig)><ds:RSAKeyValue><ds:Modulus>AQAB</ds:Modulus><ds:Exponent>AQAB</ds:Exponent></ds:RSAKeyValue></ds:KeyValue>") }),
                    ("RSA PKCS#1 v1.5", { $0.xml.replacingOccurrences(
                        of: "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p", with: "http://www.w3.org/2001/04/xmlenc#rsa-1_5") }),
                    ("garbage ciphertext", { $0.replacing(Self.lastCipherValue, with: "$1\(Data(repeating: 0x41, count: 96).base64EncodedString())$3") }),
                    ("truncated ciphertext", { $0.replacing(#"([\s\S]*<(\w+:)?CipherValue>[^<]{24})[^<]*(</)"#, with: "$1$3") }),
                ]
                for (what, variant) in variants {
                    let captured = try await capture()
                    let xml = variant(captured)
                    #expect(xml != captured.xml, "\(what): the variant changed nothing")
                    try await SAMLHostileTests.expectRefused(client, [("SAMLResponse", Data(xml.utf8).base64EncodedString()),
                                                                      ("RelayState", captured.relayState)], what, mentioning: Self.uniform)
                }
                #expect(fetched.count == 0, "the broker fetched \(fetched.all.map(\.path))")
            }
        }
    }
}
