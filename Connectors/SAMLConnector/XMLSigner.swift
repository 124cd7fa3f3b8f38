import CXMLSec
import Foundation

/// Adds an enveloped RSA-SHA256 signature (exclusive c14n, SHA-256 digest) to one element:
/// signed HTTP-POST AuthnRequests, and the signed test documents the tests build.
struct XMLSigner {
    let key: XMLSecurityKey
    /// RSA-SHA1 + SHA-1 digest instead (only for tests of the SHA-1 allow-list).
    var useSHA1 = false

    /// Signs `element` (which must have an `ID`), placing the signature after `after` (SAML puts it
    /// right after `Issuer`) or first when nil.
    func sign(_ element: xmlNodePtr, in document: XMLDocument, after: xmlNodePtr?) throws {
        guard let id = element.attribute("ID") else { throw XMLSecurityError("the element to sign has no ID") }
        guard let signature = xmlSecTmplSignatureCreate(document.pointer, cxmlsec_transform_exclc14n(),
                                                        useSHA1 ? cxmlsec_transform_rsa_sha1() : cxmlsec_transform_rsa_sha256(), nil),
              let reference = withXMLChars("#" + id, { uri in
                  xmlSecTmplSignatureAddReference(signature, useSHA1 ? cxmlsec_transform_sha1() : cxmlsec_transform_sha256(), nil, uri, nil)
              }),
              xmlSecTmplReferenceAddTransform(reference, cxmlsec_transform_enveloped()) != nil,
              xmlSecTmplReferenceAddTransform(reference, cxmlsec_transform_exclc14n()) != nil else {
            throw XMLSecurityError("could not build the signature template")
        }
        if let after {
            xmlAddNextSibling(after, signature)
        } else if let first = element.pointee.children {
            xmlAddPrevSibling(first, signature)
        } else {
            xmlAddChild(element, signature)
        }
        try document.registerIDs()
        guard let context = xmlSecDSigCtxCreate(nil) else { throw XMLSecurityError("could not create a signature context") }
        defer { xmlSecDSigCtxDestroy(context) }
        context.pointee.signKey = try key.duplicate()
        guard xmlSecDSigCtxSign(context, signature) == 0 else { throw XMLSecurityError("signing failed") }
    }
}
