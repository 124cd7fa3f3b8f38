import Crypto
import CryptoExtras
import Foundation
import HummingbirdTesting
import IdentityApp
import IdentityCore
@testable import SAMLConnector
import Testing

/// IdP metadata as IdPs publish it, built here so that each test changes one thing.
struct IdPMetadataBuilder {
    var entityID = SAMLResponseBuilder.idpEntity
    var certificates: [TestKeyPair] = [.idp]
    var use: String? = "signing"
    var sso: [(String, String)] = [("HTTP-Redirect", "https://idp.example.org/sso/redirect"), ("HTTP-POST", "https://idp.example.org/sso/post")]
    var slo: [(String, String, String?)] = [("HTTP-Redirect", "https://idp.example.org/slo", "https://idp.example.org/slo/response")]
    var validUntil: Date?

    var xml: String {
        let keys = certificates.map { pair -> String in
            let body = pair.certificatePEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            return "<md:KeyDescriptor\(use.map { " use=\"\($0)\"" } ?? "")><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\(body)"
                + "</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>"
        }.joined()
        let binding = "urn:oasis:names:tc:SAML:2.0:bindings:"
        let logout = slo.map { "<md:SingleLogoutService Binding=\"\(binding)\($0.0)\" Location=\"\($0.1)\"" + ($0.2.map { " ResponseLocation=\"\($0)\"" } ?? "") + "/>" }
        let signOn = sso.map { "<md:SingleSignOnService Binding=\"\(binding)\($0.0)\" Location=\"\($0.1)\"/>" }
        return """
        <md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" \
        ID="_md1" entityID="\(entityID)"\(validUntil.map { " validUntil=\"\(SAMLTime.format($0))\"" } ?? "")>\
        <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">\(keys)\(logout.joined())\
        <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>\(signOn.joined())\
        </md:IDPSSODescriptor></md:EntityDescriptor>
        """
    }

    func parse(signedBy verifier: XMLSignatureVerifier? = nil, document: String? = nil, now: Date = Date()) throws -> IdPMetadata {
        try IdPMetadata.parse(Data((document ?? xml).utf8), signedBy: verifier, now: now)
    }
}

@Suite("SAML IdP metadata: parsing, signatures, precedence, bindings")
struct SAMLMetadataTests {
    static func expectProblem(_ fragment: String, _ body: () throws -> Void) {
        #expect { try body() } throws: { error in "\(error)".contains(fragment) }
    }

    @Test("every signing certificate, SSO and SLO per binding; an EntitiesDescriptor with one IdP; refusals say why")
    func parsing() throws {
        var builder = IdPMetadataBuilder()
        builder.certificates = [.idp, .otherIdP, .idp]
        builder.slo.append(("HTTP-POST", "https://idp.example.org/slo/post", nil))
        let metadata = try builder.parse()
        #expect(metadata.entityID == SAMLResponseBuilder.idpEntity)
        #expect(metadata.signingCertificates.count == 2, "duplicates removed, both of the rollover kept")
        #expect(metadata.singleSignOn[.redirect] == "https://idp.example.org/sso/redirect")
        #expect(metadata.singleSignOn[.post] == "https://idp.example.org/sso/post")
        #expect(metadata.singleLogout[.redirect] == .init(location: "https://idp.example.org/slo", responseLocation: "https://idp.example.org/slo/response"))
        #expect(metadata.singleLogout[.post]?.responseLocation == nil)
        builder.use = nil
        #expect(try builder.parse().signingCertificates.count == 2, "a KeyDescriptor without use signs too")

        let inner = IdPMetadataBuilder().xml
        let sp = #"<md:EntityDescriptor entityID="https://sp.example.org"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>"#
        let aggregate = #"<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">"#
            + inner.replacingOccurrences(of: #" xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#""#, with: "")
            + sp + "</md:EntitiesDescriptor>"
        #expect(try IdPMetadataBuilder().parse(document: aggregate).entityID == SAMLResponseBuilder.idpEntity)
        let second = inner.replacingOccurrences(of: #" xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#""#, with: "")
            .replacingOccurrences(of: "ID=\"_md1\"", with: "ID=\"_md2\"")
        Self.expectProblem("holds 2 identity providers") {
            _ = try IdPMetadataBuilder().parse(document: aggregate.replacingOccurrences(of: sp, with: second.replacingOccurrences(of: "ID=\"_md2\"", with: "")))
        }

        var expired = IdPMetadataBuilder()
        expired.validUntil = Date().addingTimeInterval(-60)
        Self.expectProblem("expired") { _ = try expired.parse() }
        expired.validUntil = Date().addingTimeInterval(3600)
        #expect(try expired.parse().validUntil != nil)
        var noKeys = IdPMetadataBuilder()
        noKeys.certificates = []
        Self.expectProblem("names no signing certificate") { _ = try noKeys.parse() }
        noKeys.certificates = [.idp]
        noKeys.use = "encryption"
        Self.expectProblem("names no signing certificate") { _ = try noKeys.parse() }
        var weak = IdPMetadataBuilder()
        weak.certificates = [.idp, .weak]
        Self.expectProblem("under 2048 bits") { _ = try weak.parse() }
        var badURL = IdPMetadataBuilder()
        badURL.sso = [("HTTP-Redirect", "javascript:alert(1)")]
        Self.expectProblem("not an absolute http(s) URL") { _ = try badURL.parse() }
        var noSSO = IdPMetadataBuilder()
        noSSO.sso = [("HTTP-Artifact", "https://idp.example.org/art")]
        Self.expectProblem("no SingleSignOnService") { _ = try noSSO.parse() }
        Self.expectProblem("DOCTYPE") { _ = try IdPMetadataBuilder().parse(document: "<!DOCTYPE x [<!ENTITY a \"b\">]>" + IdPMetadataBuilder().xml) }
        Self.expectProblem("no EntityDescriptor") { _ = try IdPMetadataBuilder().parse(document: "<html/>") }
    }

    @Test("idpMetadataCertificate: signed metadata verifies; unsigned, signed by another key or changed after signing is refused")
    func signatures() throws {
        let verifier = XMLSignatureVerifier(keys: [try XMLSecurityKey(certificatePEM: TestKeyPair.ecIdP.certificatePEM)], allowSHA1: false)
        let builder = IdPMetadataBuilder()
        let signed = try SAMLResponseBuilder.sign(builder.xml, key: .idp)
        let rsaVerifier = XMLSignatureVerifier(keys: [try XMLSecurityKey(certificatePEM: TestKeyPair.idp.certificatePEM)], allowSHA1: false)
        #expect(try builder.parse(signedBy: rsaVerifier, document: signed).entityID == SAMLResponseBuilder.idpEntity)
        Self.expectProblem("not signed") { _ = try builder.parse(signedBy: rsaVerifier) }
        Self.expectProblem("does not verify") { _ = try builder.parse(signedBy: verifier, document: signed) }
        let changed = signed.replacingOccurrences(of: "https://idp.example.org/sso/post", with: "https://evil.example.org/sso")
        Self.expectProblem("does not verify") { _ = try builder.parse(signedBy: rsaVerifier, document: changed) }
    }

    @Test("explicit options win over metadata; single logout prefers HTTP-Redirect, falls back to HTTP-POST")
    func precedence() throws {
        var rollover = IdPMetadataBuilder()
        rollover.certificates = [.idp, .ecIdP]
        var metadata = try rollover.parse()
        var options = SAMLConfigTests.options(binding: .post)
        options.ssoURL = nil
        options.idpCertificates = []
        var idp = try SAMLIdentityProvider.make(options, metadata: metadata)
        #expect(idp.ssoURL == "https://idp.example.org/sso/post")
        #expect(idp.verifier.keys.count == 2, "every signing certificate of the metadata")
        #expect(idp.entityID == SAMLResponseBuilder.idpEntity)
        #expect(idp.singleLogout?.binding == .redirect && idp.singleLogout?.endpoint.location == "https://idp.example.org/slo")
        metadata.singleLogout = [.post: .init(location: "https://idp.example.org/slo/post")]
        idp = try SAMLIdentityProvider.make(options, metadata: metadata)
        #expect(idp.singleLogout?.binding == .post)
        options.ssoURL = "https://override.example.org/sso"
        options.logoutURI = "https://override.example.org/slo"
        options.idpCertificates = [TestKeyPair.otherIdP.certificatePEM]
        idp = try SAMLIdentityProvider.make(options, metadata: metadata)
        #expect(idp.ssoURL == "https://override.example.org/sso")
        #expect(idp.singleLogout?.binding == .redirect && idp.singleLogout?.endpoint.location == "https://override.example.org/slo")
        #expect(idp.verifier.keys.count == 1, "the configured certificate only, not the metadata's")
        options.logoutBinding = .post
        options.logoutResponseURI = "https://override.example.org/slo/callback"
        idp = try SAMLIdentityProvider.make(options, metadata: metadata)
        #expect(idp.singleLogout?.binding == .post && idp.singleLogout?.endpoint.responseLocation == "https://override.example.org/slo/callback")
        options.logoutURI = nil
        options.logoutBinding = .redirect
        Self.expectProblem("no HTTP-Redirect single logout service") { _ = try SAMLIdentityProvider.make(options, metadata: metadata) }
        options.logoutBinding = nil
        metadata.singleSignOn = [.redirect: "https://idp.example.org/sso/redirect"]
        options.ssoURL = nil
        Self.expectProblem("no HTTP-POST single sign-on service") { _ = try SAMLIdentityProvider.make(options, metadata: metadata) }
    }

    @Test("HTTP-Redirect: inflation bounded at 512 KiB, a '+' turned into a space still decodes, the signed part is taken as sent; ECDSA query signatures, SHA-1 only when allowed")
    func redirectBinding() throws {
        let bomb = Data(Deflate.stored(Array(repeating: UInt8(ascii: " "), count: 600 * 1024)))
        #expect { try SAMLBindings.inflate(bomb) } throws: { "\($0)".contains("more than") }
        #expect(try SAMLBindings.inflate(Data(Deflate.stored(Array("<a/>".utf8)))) == Data("<a/>".utf8))
        let value = Data([0xfb, 0xff, 0x00, 0x3c]).base64EncodedString()
        #expect(value.contains("+"))
        #expect(try SAMLBindings.decode(value.replacingOccurrences(of: "+", with: " "), binding: .post) == Data([0xfb, 0xff, 0x00, 0x3c]))
        let part = SAMLBindings.signedQueryPart("Signature=x&SigAlg=a%2Fb&RelayState=r%20s&SAMLRequest=m%2B", .request)
        #expect(part == Data("SAMLRequest=m%2B&RelayState=r%20s&SigAlg=a%2Fb".utf8))
        #expect(SAMLBindings.signedQueryPart("SAMLRequest=a&SAMLRequest=b&SigAlg=x", .request) == nil, "a repeated parameter")
        #expect(SAMLBindings.signedQueryPart("SAMLRequest=a", .request) == nil, "no SigAlg")

        let ec = try P256.Signing.PrivateKey(pemRepresentation: TestKeyPair.ecIdP.privateKeyPEM)
        let message = Data("SAMLRequest=abc&SigAlg=x".utf8)
        let verifier = try QuerySignatureVerifier(certificates: [TestKeyPair.idp.certificatePEM, TestKeyPair.ecIdP.certificatePEM], allowSHA1: false)
        #expect(verifier.verify(message, signature: try ec.signature(for: SHA256.hash(data: message)).rawRepresentation, algorithm: .ecdsaSHA256))
        #expect(!verifier.verify(message, signature: try ec.signature(for: SHA256.hash(data: message)).rawRepresentation, algorithm: .rsaSHA256))
        let rsa = try _RSA.Signing.PrivateKey(pemRepresentation: TestKeyPair.idp.privateKeyPEM)
        let sha1 = try rsa.signature(for: Insecure.SHA1.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation
        #expect(!verifier.verify(message, signature: sha1, algorithm: .rsaSHA1))
        let allowing = try QuerySignatureVerifier(certificates: [TestKeyPair.idp.certificatePEM], allowSHA1: true)
        #expect(allowing.verify(message, signature: sha1, algorithm: .rsaSHA1))
        let sha512 = try rsa.signature(for: SHA512.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation
        #expect(verifier.verify(message, signature: sha512, algorithm: .rsaSHA512))
        #expect(!verifier.verify(message + Data([0]), signature: sha512, algorithm: .rsaSHA512))
    }
}
