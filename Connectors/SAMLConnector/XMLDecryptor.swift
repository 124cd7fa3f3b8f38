import CXMLSec
import Foundation

/// Decrypts a SAML `EncryptedAssertion` with the SP's private key
/// (docs/connectors/saml.md, "What the ACS checks").
///
/// Only these algorithms are accepted: AES-CBC or AES-GCM for the data, RSA-OAEP for the key
/// (RSA PKCS#1 v1.5 key transport is refused: it is open to padding-oracle attacks).
struct XMLDecryptor: Sendable {
    let key: XMLSecurityKey

    static let dataAlgorithms: Set<String> = [
        "http://www.w3.org/2001/04/xmlenc#aes128-cbc", "http://www.w3.org/2001/04/xmlenc#aes192-cbc",
        "http://www.w3.org/2001/04/xmlenc#aes256-cbc", "http://www.w3.org/2009/xmlenc11#aes128-gcm",
        "http://www.w3.org/2009/xmlenc11#aes192-gcm", "http://www.w3.org/2009/xmlenc11#aes256-gcm",
    ]
    static let keyAlgorithms: Set<String> = [
        "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
    ]

    /// Replaces the `EncryptedData` inside `encryptedAssertion` with the assertion it holds and
    /// returns that assertion.
    func decrypt(_ encryptedAssertion: xmlNodePtr, in document: XMLDocument) throws -> xmlNodePtr {
        guard let data = try encryptedAssertion.onlyChild("EncryptedData", XMLNamespace.xmlenc) else {
            throw XMLSecurityError("EncryptedAssertion holds no EncryptedData")
        }
        try Self.checkAlgorithm(of: data, allowed: Self.dataAlgorithms, what: "data encryption")
        try moveSiblingKeysIntoKeyInfo(encryptedAssertion, data: data)
        try EncryptedAssertionShape.check(encryptedAssertion, keyAlgorithms: Self.keyAlgorithms)
        guard let manager = xmlSecKeysMngrCreate() else { throw XMLSecurityError("could not create a keys manager") }
        defer { xmlSecKeysMngrDestroy(manager) }
        guard xmlSecOpenSSLAppDefaultKeysMngrInit(manager) == 0 else { throw XMLSecurityError("could not set up the keys manager") }
        let copy = try key.duplicate()
        guard xmlSecOpenSSLAppDefaultKeysMngrAdoptKey(manager, copy) == 0 else {
            xmlSecKeyDestroy(copy)
            throw XMLSecurityError("could not load the SP key")
        }
        guard let context = xmlSecEncCtxCreate(manager) else { throw XMLSecurityError("could not create a decryption context") }
        defer { xmlSecEncCtxDestroy(context) }
        try Self.restrict(context)
        guard xmlSecEncCtxDecrypt(context, data) == 0, context.pointee.result != nil else {
            throw XMLSecurityError("the encrypted assertion could not be decrypted with the SP key")
        }
        try document.registerIDs()
        let assertions = encryptedAssertion.children("Assertion", XMLNamespace.assertion)
        guard assertions.count == 1, encryptedAssertion.elementChildren.count == 1 else {
            throw XMLSecurityError("the encrypted content is not exactly one Assertion")
        }
        return assertions[0]
    }

    /// Belt and braces behind ``EncryptedAssertionShape``: a KeyInfo is read only as an
    /// EncryptedKey (the SP key itself comes from the keys manager), no RetrievalMethod is
    /// followed, keys do not nest, and only the AES transforms may decrypt the data.
    private static func restrict(_ context: xmlSecEncCtxPtr) throws {
        context.pointee.keyInfoReadCtx.maxRetrievalMethodLevel = 0
        context.pointee.keyInfoReadCtx.maxEncryptedKeyLevel = 1
        context.pointee.keyInfoReadCtx.retrievalMethodCtx.enabledUris = xmlSecTransformUriType(xmlSecTransformUriTypeNone)
        var failed = cxmlsec_allow_keydata(&context.pointee.keyInfoReadCtx.enabledKeyData, cxmlsec_keydata_encryptedkey()) != 0
        for transform in [cxmlsec_transform_aes128_cbc(), cxmlsec_transform_aes192_cbc(), cxmlsec_transform_aes256_cbc(),
                          cxmlsec_transform_aes128_gcm(), cxmlsec_transform_aes192_gcm(), cxmlsec_transform_aes256_gcm()] {
            failed = failed || cxmlsec_allow(&context.pointee.transformCtx.enabledTransforms, transform) != 0
        }
        if failed { throw XMLSecurityError("could not restrict the decryption context") }
    }

    private static func checkAlgorithm(of node: xmlNodePtr, allowed: Set<String>, what: String) throws {
        guard let method = try node.onlyChild("EncryptionMethod", XMLNamespace.xmlenc),
              let algorithm = method.attribute("Algorithm"), allowed.contains(algorithm) else {
            throw XMLSecurityError("the \(what) algorithm is missing or not allowed")
        }
    }

    /// Some IdPs put `EncryptedKey` beside `EncryptedData` rather than in its `KeyInfo`; xmlsec
    /// looks only in `KeyInfo`.
    private func moveSiblingKeysIntoKeyInfo(_ encryptedAssertion: xmlNodePtr, data: xmlNodePtr) throws {
        let siblings = encryptedAssertion.children("EncryptedKey", XMLNamespace.xmlenc)
        var keyInfo = try data.onlyChild("KeyInfo", XMLNamespace.dsig)
        let inside = keyInfo?.children("EncryptedKey", XMLNamespace.xmlenc) ?? []
        guard inside.isEmpty, !siblings.isEmpty else {
            guard !inside.isEmpty else { throw XMLSecurityError("the encrypted assertion carries no EncryptedKey") }
            return
        }
        if keyInfo == nil {
            keyInfo = xmlSecTmplEncDataEnsureKeyInfo(data, nil)
        }
        guard let keyInfo else { throw XMLSecurityError("could not attach the EncryptedKey") }
        for encryptedKey in siblings {
            xmlUnlinkNode(encryptedKey)
            xmlAddChild(keyInfo, encryptedKey)
        }
        // RetrievalMethod pointers to the moved keys are now redundant and would be followed twice.
        for retrieval in keyInfo.children("RetrievalMethod", XMLNamespace.dsig) {
            xmlUnlinkNode(retrieval)
            xmlFreeNode(retrieval)
        }
    }
}
