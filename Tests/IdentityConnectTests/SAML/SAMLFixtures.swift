import CXMLSec
import Foundation
@testable import SAMLConnector

/// A PEM key pair made with the openssl CLI (an IdP's signing pair, or the SP's).
struct TestKeyPair: Sendable {
    let privateKeyPEM: String
    let certificatePEM: String

    /// `openssl req -x509` into a temporary directory; one call per pair, cached per test process.
    static func make(_ name: String, key type: [String] = ["-newkey", "rsa:2048"]) -> TestKeyPair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idc-saml-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let status = try! ChildProcess.run("/usr/bin/openssl", ["req", "-x509"] + type + ["-nodes", "-keyout", key, "-out", certificate,
                                                                                      "-days", "2", "-subj", "/CN=\(name)"],
                                           keepStderr: false)
        precondition(status == 0, "openssl req failed for \(name) with status \(status)")
        return TestKeyPair(privateKeyPEM: try! String(contentsOfFile: key, encoding: .utf8),
                           certificatePEM: try! String(contentsOfFile: certificate, encoding: .utf8))
    }

    static let idp = make("test-idp")
    static let otherIdP = make("other-idp")
    static let sp = make("test-sp")
    /// An EC P-256 pair, for rollovers that mix key types.
    static let ecIdP = make("ec-idp", key: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"])
    /// RSA-1024: too short to be accepted in configuration.
    static let weak = make("weak-idp", key: ["-newkey", "rsa:1024"])
}

/// Builds SAML Responses the way an IdP does, signed with ``TestKeyPair/idp``, so each test can
/// change one thing and see it refused.
struct SAMLResponseBuilder {
    static let acs = "http://127.0.0.1:8080/saml/acs"
    static let sp = "http://127.0.0.1:8080/saml/metadata"
    static let slo = "http://127.0.0.1:8080/saml/slo"
    static let idpEntity = "https://idp.example.org/saml"

    var now: Date
    var requestID = "_request-1"
    var responseID = "_response-1"
    var assertionID = "_assertion-1"
    var inResponseTo: String? = "_request-1"
    var destination: String? = acs
    var recipient = acs
    var audience = sp
    var nameID = "alice@example.org"
    var status = "urn:oasis:names:tc:SAML:2.0:status:Success"
    var notBefore: TimeInterval = -30
    var notOnOrAfter: TimeInterval = 300
    var sessionNotOnOrAfter: TimeInterval? = 3600
    /// The AuthnStatement's SessionIndex (which IdP session a LogoutRequest ends).
    var sessionIndex: String?
    var attributes: [(String, [String])] = [("mail", ["alice@example.org"]), ("displayName", ["Alice"]),
                                            ("eduPersonAffiliation", ["staff", "admins"])]
    var signAssertion = true
    var signResponse = false
    var key = TestKeyPair.idp
    var useSHA1 = false

    func time(_ offset: TimeInterval) -> String { SAMLTime.format(now.addingTimeInterval(offset)) }

    var assertionXML: String {
        let attributeXML = attributes.map { name, values in
            "<saml:Attribute Name=\"\(name)\" NameFormat=\"urn:oasis:names:tc:SAML:2.0:attrname-format:basic\">"
                + values.map { "<saml:AttributeValue>\(XMLText.escape($0))</saml:AttributeValue>" }.joined() + "</saml:Attribute>"
        }.joined()
        let session = (sessionNotOnOrAfter.map { " SessionNotOnOrAfter=\"\(time($0))\"" } ?? "")
            + (sessionIndex.map { " SessionIndex=\"\($0)\"" } ?? "")
        return """
        <saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(assertionID)" Version="2.0" IssueInstant="\(time(0))">\
        <saml:Issuer>\(Self.idpEntity)</saml:Issuer>\
        <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">\(nameID)</saml:NameID>\
        <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
        <saml:SubjectConfirmationData Recipient="\(recipient)" NotOnOrAfter="\(time(notOnOrAfter))"\(inResponseTo.map { " InResponseTo=\"\($0)\"" } ?? "")/>\
        </saml:SubjectConfirmation></saml:Subject>\
        <saml:Conditions NotBefore="\(time(notBefore))" NotOnOrAfter="\(time(notOnOrAfter))">\
        <saml:AudienceRestriction><saml:Audience>\(audience)</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
        <saml:AuthnStatement AuthnInstant="\(time(0))"\(session)><saml:AuthnContext>\
        <saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef>\
        </saml:AuthnContext></saml:AuthnStatement>\
        <saml:AttributeStatement>\(attributeXML)</saml:AttributeStatement></saml:Assertion>
        """
    }

    /// The Response with `assertion` (default: this builder's, signed as configured) inside.
    func responseXML(assertion: String? = nil) throws -> String {
        let inner = try assertion ?? signedAssertion()
        let xml = """
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(responseID)" Version="2.0" IssueInstant="\(time(0))"\(destination.map { " Destination=\"\($0)\"" } ?? "")\
        \(inResponseTo.map { " InResponseTo=\"\($0)\"" } ?? "")>\
        <saml:Issuer>\(Self.idpEntity)</saml:Issuer>\
        <samlp:Status><samlp:StatusCode Value="\(status)"/></samlp:Status>\(inner)</samlp:Response>
        """
        return signResponse ? try Self.sign(xml, key: key, useSHA1: useSHA1) : xml
    }

    func signedAssertion() throws -> String {
        signAssertion ? try Self.sign(assertionXML, key: key, useSHA1: useSHA1) : assertionXML
    }

    /// Signs the root element of `xml`, the signature placed after its Issuer.
    static func sign(_ xml: String, key: TestKeyPair, useSHA1: Bool = false) throws -> String {
        let document = try XMLDocument(parsing: Data(xml.utf8))
        let root = document.root!
        try XMLSigner(key: try XMLSecurityKey(privateKeyPEM: key.privateKeyPEM), useSHA1: useSHA1)
            .sign(root, in: document, after: root.children("Issuer", XMLNamespace.assertion).first)
        return document.serialized(root)
    }

    /// Where the first XML signature element sits in `xml` (xmlsec writes it in the default namespace).
    static func signatureRange(in xml: String) -> Range<String.Index>? {
        guard let start = xml.range(of: "<Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\""),
              let end = xml.range(of: "</Signature>", range: start.upperBound..<xml.endIndex) else { return nil }
        return start.lowerBound..<end.upperBound
    }

    var expectation: SAMLResponseValidator.Expectation {
        .init(requestID: requestID, assertionConsumerURL: Self.acs, spEntityID: Self.sp, now: now)
    }

    static func validator(certificates: [TestKeyPair] = [.idp], wantAssertionsSigned: Bool = true, allowSHA1: Bool = false,
                          decryptWith sp: TestKeyPair? = nil) throws -> SAMLResponseValidator {
        SAMLResponseValidator(
            verifier: XMLSignatureVerifier(keys: try certificates.map { try XMLSecurityKey(certificatePEM: $0.certificatePEM) },
                                           allowSHA1: allowSHA1),
            decryptor: try sp.map { XMLDecryptor(key: try XMLSecurityKey(privateKeyPEM: $0.privateKeyPEM)) },
            wantAssertionsSigned: wantAssertionsSigned)
    }
}
