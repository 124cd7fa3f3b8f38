import CXMLSec
import Foundation

/// Verifies the enveloped XML signature of one element with pinned keys only.
///
/// What makes it safe against signature wrapping (docs/connectors/saml.md, "What the ACS checks"):
/// the signature must be a direct child of the element the caller is about to use; it must hold
/// exactly one reference, a same-document one, equal to `#<that element's ID>`; IDs are unique in
/// the document (``XMLDocument``); the key comes from configuration, never from `KeyInfo`; and only
/// allow-listed algorithms run (SHA-1 only when the auth service enables it).
struct XMLSignatureVerifier: Sendable {
    let keys: [XMLSecurityKey]
    let allowSHA1: Bool

    enum Outcome: Equatable {
        /// The element carries no signature.
        case unsigned
        /// Signed, and the signature verifies with one of the keys.
        case valid
    }

    func verify(_ element: xmlNodePtr, in document: XMLDocument) throws -> Outcome {
        let signatures = element.children("Signature", XMLNamespace.dsig)
        guard let signature = signatures.first else { return .unsigned }
        guard signatures.count == 1 else { throw XMLSecurityError("more than one signature on \(element.localName)") }
        guard let id = element.attribute("ID"), !id.isEmpty else {
            throw XMLSecurityError("the signed \(element.localName) has no ID")
        }
        // With a rollover of mixed key types, a key of the wrong type is a processing error for
        // xmlsec; that only counts when no configured key verifies.
        var processedByAnyKey = false
        for key in keys {
            switch try verify(signature, referencing: id, key: key) {
            case .some(true):
                // The ID the reference resolved to must be this element's own ID attribute.
                guard let attribute = xmlGetID(document.pointer, id), attribute.pointee.parent == element else {
                    throw XMLSecurityError("the signature of \(element.localName) resolves to another element")
                }
                return .valid
            case .some(false): processedByAnyKey = true
            case .none: continue
            }
        }
        guard processedByAnyKey else {
            throw XMLSecurityError("the signature could not be processed (malformed, or an algorithm or reference that is not allowed)")
        }
        throw XMLSecurityError("the signature of \(element.localName) does not verify with the configured IdP certificate")
    }

    /// true: verifies with `key`; false: does not; nil: xmlsec could not process it with this key
    /// (malformed, a forbidden algorithm or reference, or a key of another type).
    private func verify(_ signature: xmlNodePtr, referencing id: String, key: XMLSecurityKey) throws -> Bool? {
        guard let context = xmlSecDSigCtxCreate(nil) else { throw XMLSecurityError("could not create a signature context") }
        defer { xmlSecDSigCtxDestroy(context) }
        context.pointee.signKey = try key.duplicate()
        context.pointee.enabledReferenceUris = xmlSecTransformUriType(xmlSecTransformUriTypeSameDocument)
        for transform in referenceTransforms { xmlSecDSigCtxEnableReferenceTransform(context, transform) }
        for transform in signatureTransforms { xmlSecDSigCtxEnableSignatureTransform(context, transform) }
        guard xmlSecDSigCtxVerify(context, signature) == 0 else { return nil }
        guard context.pointee.status == xmlSecDSigStatusSucceeded else { return false }
        let item: UnsafeMutableRawPointer? = withUnsafeMutablePointer(to: &context.pointee.signedInfoReferences) { references in
            xmlSecPtrListGetSize(references) == 1 ? xmlSecPtrListGetItem(references, 0) : nil
        }
        guard let item else { throw XMLSecurityError("the signature must hold exactly one reference") }
        let reference = item.assumingMemoryBound(to: xmlSecDSigReferenceCtx.self)
        guard let uri = reference.pointee.uri, String(cString: uri) == "#" + id,
              reference.pointee.status == xmlSecDSigStatusSucceeded else {
            throw XMLSecurityError("the signature does not cover the element it is attached to")
        }
        return true
    }

    private var digestTransforms: [xmlSecTransformId?] {
        [cxmlsec_transform_sha256(), cxmlsec_transform_sha384(), cxmlsec_transform_sha512()]
            + (allowSHA1 ? [cxmlsec_transform_sha1()] : [])
    }

    private var canonicalization: [xmlSecTransformId?] {
        [cxmlsec_transform_exclc14n(), cxmlsec_transform_exclc14n_comments(), cxmlsec_transform_c14n(),
         cxmlsec_transform_c14n_comments(), cxmlsec_transform_c14n11()]
    }

    private var referenceTransforms: [xmlSecTransformId?] {
        [cxmlsec_transform_enveloped()] + canonicalization + digestTransforms
    }

    private var signatureTransforms: [xmlSecTransformId?] {
        canonicalization + digestTransforms
            + [cxmlsec_transform_rsa_sha256(), cxmlsec_transform_rsa_sha384(), cxmlsec_transform_rsa_sha512(),
               cxmlsec_transform_ecdsa_sha256(), cxmlsec_transform_ecdsa_sha384(), cxmlsec_transform_ecdsa_sha512()]
            + (allowSHA1 ? [cxmlsec_transform_rsa_sha1()] : [])
    }
}
