import CXMLSec
import Foundation

/// Namespaces SAML responses use.
enum XMLNamespace {
    static let protocol_ = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertion = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let dsig = "http://www.w3.org/2000/09/xmldsig#"
    static let xmlenc = "http://www.w3.org/2001/04/xmlenc#"
}

/// A parsed XML document owned by one operation (libxml2 documents are not shared across threads).
///
/// Parsing is locked down (docs/connectors/saml.md, "What the ACS checks"): no network, no DTD
/// loading, no entity substitution, and a document carrying any DOCTYPE is refused outright (SAML
/// never needs one, and it is where entity-expansion and XXE attacks live). Duplicate `ID` values
/// are refused too, so an ID reference in a signature can only ever mean one element.
final class XMLDocument {
    /// Largest document accepted (decoded bytes).
    static let maximumSize = 512 * 1024

    let pointer: xmlDocPtr

    init(parsing data: Data) throws {
        try XMLSecurityLibrary.prepare()
        guard !data.isEmpty else { throw XMLSecurityError("the XML document is empty") }
        guard data.count <= Self.maximumSize else { throw XMLSecurityError("the XML document is larger than \(Self.maximumSize) bytes") }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed = data.withUnsafeBytes { buffer in
            xmlReadMemory(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), "saml.xml", nil, options)
        }
        guard let parsed else { throw XMLSecurityError("the document is not well-formed XML") }
        pointer = parsed
        guard parsed.pointee.intSubset == nil, parsed.pointee.extSubset == nil else {
            throw XMLSecurityError("the document carries a DOCTYPE, which is not allowed")
        }
        guard root != nil else { throw XMLSecurityError("the document has no root element") }
        try registerIDs()
    }

    deinit { xmlFreeDoc(pointer) }

    var root: xmlNodePtr? { xmlDocGetRootElement(pointer) }

    /// Registers every `ID` attribute as an XML ID (what signature references point at) and refuses
    /// documents in which two elements share one.
    func registerIDs() throws {
        var seen: Set<String> = []
        var duplicate = false
        func visit(_ node: xmlNodePtr) {
            if let id = node.attribute("ID"), !seen.insert(id).inserted { duplicate = true }
            for child in node.elementChildren { visit(child) }
        }
        if let root { visit(root) }
        guard !duplicate else { throw XMLSecurityError("two elements share one ID") }
        if let root {
            let name = Array("ID".utf8CString).map { xmlChar(bitPattern: $0) }
            name.withUnsafeBufferPointer { idName in
                var names: [UnsafePointer<xmlChar>?] = [idName.baseAddress, nil]
                names.withUnsafeMutableBufferPointer { xmlSecAddIDs(pointer, root, $0.baseAddress) }
            }
        }
    }

    /// The document serialised as it stands (after decryption, the assertion in clear).
    func serialized(_ node: xmlNodePtr) -> String {
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        xmlNodeDump(buffer, pointer, node, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return "" }
        return String(cString: content)
    }
}

extension UnsafeMutablePointer where Pointee == xmlNode {
    var localName: String { pointee.name.map { String(cString: $0) } ?? "" }
    var namespaceURI: String? { pointee.ns?.pointee.href.map { String(cString: $0) } }

    func isElement(_ name: String, _ namespace: String) -> Bool {
        pointee.type == XML_ELEMENT_NODE && localName == name && namespaceURI == namespace
    }

    /// Whether a comment or processing instruction sits anywhere inside. Canonicalization without
    /// comments leaves them out of the digest, so they can be added to a signed element unnoticed
    /// and would split the text nodes a reader sees.
    var containsCommentOrInstruction: Bool {
        var child = pointee.children
        while let node = child {
            if node.pointee.type == XML_COMMENT_NODE || node.pointee.type == XML_PI_NODE { return true }
            if node.pointee.type == XML_ELEMENT_NODE && node.containsCommentOrInstruction { return true }
            child = node.pointee.next
        }
        return false
    }

    /// Element children, in document order.
    var elementChildren: [xmlNodePtr] {
        var result: [xmlNodePtr] = []
        var child = pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE { result.append(node) }
            child = node.pointee.next
        }
        return result
    }

    func children(_ name: String, _ namespace: String) -> [xmlNodePtr] {
        elementChildren.filter { $0.isElement(name, namespace) }
    }

    /// The one child of that name; nil when absent; an error when there are several.
    func onlyChild(_ name: String, _ namespace: String) throws -> xmlNodePtr? {
        let found = children(name, namespace)
        guard found.count <= 1 else { throw XMLSecurityError("more than one \(name) element") }
        return found.first
    }

    /// An attribute without a namespace (SAML's own attributes are unqualified).
    func attribute(_ name: String) -> String? {
        guard let value = withXMLChars(name, { xmlGetNoNsProp(self, $0) }) else { return nil }
        defer { cxmlsec_free(value) }
        return String(cString: value)
    }

    /// The element's text when it holds only text (and CDATA); nil when it holds elements or
    /// comments, which SAML values never do (comment injection into NameID is refused here).
    var textOnly: String? {
        var text = ""
        var child = pointee.children
        while let node = child {
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { text += String(cString: content) }
            default:
                return nil
            }
            child = node.pointee.next
        }
        return text
    }
}

/// Calls `body` with `text` as the NUL-terminated `xmlChar` string libxml2 and xmlsec take.
func withXMLChars<T>(_ text: String, _ body: (UnsafePointer<xmlChar>) -> T) -> T {
    text.withCString { body(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) }
}
