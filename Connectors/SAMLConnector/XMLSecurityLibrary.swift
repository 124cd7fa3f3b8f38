import CXMLSec
import Foundation

/// Errors of the XML security layer. `description` is safe to log; none carries key material.
public struct XMLSecurityError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// libxml2 + xmlsec1 initialised once per process, before first use (docs/connectors/saml.md,
/// DESIGN §5): no network access and no external entities for any parse, xmlsec's stderr output
/// off.
enum XMLSecurityLibrary {
    private static let ready: Result<Void, XMLSecurityError> = {
        xmlInitParser()
        // Defence in depth: even a parse that asked for external entities gets none.
        xmlSetExternalEntityLoader { _, _, _ in nil }
        guard xmlSecInit() == 0 else { return .failure(XMLSecurityError("xmlsec could not be initialised")) }
        // xmlsec registers file, HTTP and FTP readers for URI references (RetrievalMethod,
        // CipherReference, external References). Nothing here may ever be fetched: drop them all.
        xmlSecIOCleanupCallbacks()
        guard cxmlsec_check_version() == 1 else { return .failure(XMLSecurityError("xmlsec library version mismatch")) }
        guard xmlSecOpenSSLAppInit(nil) == 0, xmlSecOpenSSLInit() == 0 else {
            return .failure(XMLSecurityError("xmlsec's OpenSSL backend could not be initialised"))
        }
        xmlSecErrorsDefaultCallbackEnableOutput(0)
        return .success(())
    }()

    /// Initialises the libraries (idempotent, thread-safe through Swift's lazy static).
    static func prepare() throws {
        try ready.get()
    }
}

/// An xmlsec key loaded from PEM: a public key from a certificate (an IdP's signing certificate),
/// or a private key (the SP's). Each operation works on its own duplicate, as xmlsec contexts free
/// the key they were given.
final class XMLSecurityKey: @unchecked Sendable {
    private let key: UnsafeMutablePointer<xmlSecKey>

    /// Loads the public key of a PEM certificate.
    convenience init(certificatePEM: String) throws {
        try self.init(pem: certificatePEM, format: cxmlsec_format_cert_pem(), what: "certificate")
    }

    /// Loads a PEM private key (PKCS#8 or traditional RSA/EC), unencrypted.
    convenience init(privateKeyPEM: String) throws {
        try self.init(pem: privateKeyPEM, format: cxmlsec_format_pem(), what: "private key")
    }

    private init(pem: String, format: xmlSecKeyDataFormat, what: String) throws {
        try XMLSecurityLibrary.prepare()
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count < 1_000_000,
              let loaded = bytes.withUnsafeBufferPointer({ buffer in
                  xmlSecOpenSSLAppKeyLoadMemory(buffer.baseAddress, UInt32(buffer.count), format, nil, nil, nil)
              }) else { throw XMLSecurityError("the \(what) is not a readable PEM \(what)") }
        key = loaded
    }

    deinit { xmlSecKeyDestroy(key) }

    /// RSA keys must have at least this many bits (NIST SP 800-131A); EC keys are P-256 or larger by construction.
    static let minimumRSABits = 2048

    /// Whether this is an RSA key shorter than ``minimumRSABits``.
    var isWeakRSA: Bool { cxmlsec_key_is_rsa(key) != 0 && Int(cxmlsec_key_bits(key)) < Self.minimumRSABits }

    /// A copy owned by the caller (freed by the context it is handed to, or with `xmlSecKeyDestroy`).
    func duplicate() throws -> UnsafeMutablePointer<xmlSecKey> {
        guard let copy = xmlSecKeyDuplicate(key) else { throw XMLSecurityError("could not copy a key") }
        return copy
    }
}
