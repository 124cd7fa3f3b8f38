import CXMLSec
import Foundation

/// The ACS checks and XML decryption on raw bytes, for the fuzz targets in Sources/FuzzEntries
/// (docs/fuzzing.md). A fixed IdP certificate and SP key (test keys under Fuzz/keys) let the seeds
/// carry real signatures and ciphertext, so mutations reach the code behind those checks.
package struct SAMLFuzzing: Sendable {
    /// What the seeds were made for (Fuzz/make-saml-seeds.sh uses the same values).
    package static let requestID = "_fuzz-request"
    package static let assertionConsumerURL = "https://sp.example.org/saml/acs"
    package static let spEntityID = "https://sp.example.org/saml/metadata"
    package static let now = Date(timeIntervalSince1970: 1_780_272_000)  // 2026-06-01T00:00:00Z

    let validator: SAMLResponseValidator
    let decryptor: XMLDecryptor

    package init(idpCertificatePEM: String, spPrivateKeyPEM: String) throws {
        decryptor = XMLDecryptor(key: try XMLSecurityKey(privateKeyPEM: spPrivateKeyPEM))
        validator = SAMLResponseValidator(verifier: XMLSignatureVerifier(keys: [try XMLSecurityKey(certificatePEM: idpCertificatePEM)],
                                                                         allowSHA1: false),
                                          decryptor: decryptor, wantAssertionsSigned: true)
    }

    /// The NameID of the assertion the ACS accepts, nil when it refuses the response.
    package func acceptedNameID(_ xml: Data) -> String? {
        let expectation = SAMLResponseValidator.Expectation(requestID: Self.requestID, assertionConsumerURL: Self.assertionConsumerURL,
                                                            spEntityID: Self.spEntityID, now: Self.now)
        return try? validator.validate(xml, expectation).nameID
    }

    /// Decrypts the first `EncryptedAssertion` of the document (the root or a child of it) with
    /// the SP key alone; the local name of what came out, nil when nothing was decrypted.
    package func decryptedElementName(_ xml: Data) -> String? {
        guard let document = try? XMLDocument(parsing: xml), let root = document.root else { return nil }
        let encrypted = root.isElement("EncryptedAssertion", XMLNamespace.assertion)
            ? root : root.children("EncryptedAssertion", XMLNamespace.assertion).first
        guard let encrypted, let assertion = try? decryptor.decrypt(encrypted, in: document) else { return nil }
        return assertion.pointee.name.map { String(cString: $0) }
    }
}
