import CXMLSec
import Foundation

/// What an `EncryptedAssertion` may contain before xmlsec touches it: the elements of
/// XML Encryption that SAML IdPs send, and nothing that makes xmlsec reach outside the message
/// (`RetrievalMethod`, `CipherReference`), bring its own key (`KeyValue`, `AgreementMethod`) or nest
/// keys inside keys. Every `EncryptedKey` must use an allowed key-transport algorithm.
enum EncryptedAssertionShape {
    private static let xmlenc11 = "http://www.w3.org/2009/xmlenc11#"

    private static let allowed: Set<String> = {
        let xenc = ["EncryptedData", "EncryptionMethod", "CipherData", "CipherValue", "EncryptedKey", "ReferenceList",
                    "DataReference", "KeyReference", "CarriedKeyName", "OAEPparams", "KeySize"].map { "\(XMLNamespace.xmlenc) \($0)" }
        let dsig = ["KeyInfo", "KeyName", "X509Data", "X509Certificate", "X509IssuerSerial", "X509IssuerName",
                    "X509SerialNumber", "X509SubjectName", "X509SKI", "DigestMethod"].map { "\(XMLNamespace.dsig) \($0)" }
        return Set(xenc + dsig + ["\(xmlenc11) MGF"])
    }()

    /// Refuses anything outside the allow-list, nested `EncryptedData`/`EncryptedKey`, and key
    /// transports other than `keyAlgorithms`.
    static func check(_ encryptedAssertion: xmlNodePtr, keyAlgorithms: Set<String>) throws {
        func visit(_ node: xmlNodePtr, insideKey: Bool, insideData: Bool) throws {
            for child in node.elementChildren {
                let name = child.localName
                guard let namespace = child.namespaceURI, allowed.contains("\(namespace) \(name)") else {
                    throw XMLSecurityError("the encrypted assertion contains \(name.prefix(64)), which is not accepted")
                }
                let isKey = child.isElement("EncryptedKey", XMLNamespace.xmlenc)
                let isData = child.isElement("EncryptedData", XMLNamespace.xmlenc)
                if (isKey && insideKey) || (isData && insideData) {
                    throw XMLSecurityError("the encrypted assertion nests encrypted keys or data")
                }
                if isKey {
                    guard let method = try child.onlyChild("EncryptionMethod", XMLNamespace.xmlenc),
                          let algorithm = method.attribute("Algorithm"), keyAlgorithms.contains(algorithm) else {
                        throw XMLSecurityError("the key transport algorithm is missing or not allowed")
                    }
                }
                try visit(child, insideKey: insideKey || isKey, insideData: insideData || isData)
            }
        }
        try visit(encryptedAssertion, insideKey: false, insideData: false)
    }
}
