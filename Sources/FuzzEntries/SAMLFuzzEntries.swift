import Foundation
import SAMLConnector

/// SAML Responses through the ACS checks, and EncryptedAssertions through decryption.
enum SAMLFuzzEntries {
    /// Fuzz/keys, found from this file's place in the checkout (the fuzzer and the replay test
    /// both run from a checkout).
    static let keys = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/keys")

    static let fuzzing: SAMLFuzzing = {
        do {
            return try SAMLFuzzing(idpCertificatePEM: String(contentsOf: keys.appendingPathComponent("idp.crt"), encoding: .utf8),
                                   spPrivateKeyPEM: String(contentsOf: keys.appendingPathComponent("sp.key"), encoding: .utf8))
        } catch {
            fatalError("the fuzz keys under \(keys.path) cannot be loaded: \(error)")
        }
    }()

    /// The only subject the fixed IdP key ever signed: anything else accepted is a forgery
    /// (signature wrapping, a comment in the NameID, an unsigned second assertion).
    static let signedSubject = "alice@example.org"

    static func response(_ data: Data) {
        guard let nameID = fuzzing.acceptedNameID(data) else { return }
        require(nameID == signedSubject, "the ACS accepted an assertion for \(nameID.prefix(80))")
    }

    static func decrypt(_ data: Data) {
        guard let name = fuzzing.decryptedElementName(data) else { return }
        require(!name.isEmpty, "decryption produced an element without a name")
    }
}
