import CryptoExtras
import Foundation

/// How many SAML Responses per second the ACS can check: a Response shaped like an IdP's (RSA-2048,
/// signed assertion, five attributes) is validated in full — parse, ID registration, signature,
/// conditions — on several threads at once (`idconnect bench saml`).
public enum SAMLVerificationBenchmark {
    public static func verificationsPerSecond(workers: Int, seconds: Double) throws -> Int {
        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let key = try XMLSecurityKey(privateKeyPEM: pem)
        let now = Date()
        let assertion = """
        <saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1" Version="2.0" IssueInstant="\(SAMLTime.format(now))">\
        <saml:Issuer>https://idp.example.org</saml:Issuer><saml:Subject><saml:NameID>alice@example.org</saml:NameID>\
        <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData \
        Recipient="https://sp.example.org/saml/acs" NotOnOrAfter="\(SAMLTime.format(now + 600))" InResponseTo="_r1"/>\
        </saml:SubjectConfirmation></saml:Subject><saml:Conditions NotOnOrAfter="\(SAMLTime.format(now + 600))">\
        <saml:AudienceRestriction><saml:Audience>https://sp.example.org/saml/metadata</saml:Audience></saml:AudienceRestriction>\
        </saml:Conditions><saml:AttributeStatement>\
        \(["mail", "displayName", "givenName", "sn", "eduPersonAffiliation"].map {
            "<saml:Attribute Name=\"\($0)\"><saml:AttributeValue>value of \($0)</saml:AttributeValue></saml:Attribute>"
        }.joined())</saml:AttributeStatement></saml:Assertion>
        """
        let document = try XMLDocument(parsing: Data(assertion.utf8))
        guard let root = document.root else { throw XMLSecurityError("no assertion") }
        try XMLSigner(key: key).sign(root, in: document, after: root.children("Issuer", XMLNamespace.assertion).first)
        let response = Data("""
        <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_p1" Version="2.0" InResponseTo="_r1" \
        Destination="https://sp.example.org/saml/acs"><samlp:Status><samlp:StatusCode \
        Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\(document.serialized(root))</samlp:Response>
        """.utf8)
        let validator = SAMLResponseValidator(verifier: XMLSignatureVerifier(keys: [key], allowSHA1: false), decryptor: nil,
                                              wantAssertionsSigned: true)
        let expectation = SAMLResponseValidator.Expectation(
            requestID: "_r1", assertionConsumerURL: "https://sp.example.org/saml/acs", spEntityID: "https://sp.example.org/saml/metadata",
            now: now)
        _ = try validator.validate(response, expectation)
        let started = Date()
        let group = DispatchGroup()
        let counts = Counts()
        for _ in 0..<max(1, workers) {
            group.enter()
            Thread.detachNewThread {
                var count = 0
                while Date().timeIntervalSince(started) < seconds {
                    if (try? validator.validate(response, expectation)) != nil { count += 1 }
                }
                counts.add(count)
                group.leave()
            }
        }
        group.wait()
        return Int(Double(counts.total) / max(Date().timeIntervalSince(started), 0.001))
    }

    private final class Counts: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var total = 0
        func add(_ count: Int) { lock.withLock { total += count } }
    }
}
