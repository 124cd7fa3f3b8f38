import Crypto
import CryptoExtras
import CZlib
import Foundation
import IdentityCore

/// Encoding and decoding of SAML protocol messages for the HTTP-Redirect and HTTP-POST bindings
/// (SAML Bindings §3.4, §3.5).
enum SAMLBindings {
    /// What carries a message: `SAMLRequest` or `SAMLResponse`.
    enum Parameter: String, Sendable { case request = "SAMLRequest", response = "SAMLResponse" }

    /// The signing key of the SP for query signatures (RSA-SHA256).
    static let querySignatureAlgorithm = QuerySignatureAlgorithm.rsaSHA256

    /// HTTP-Redirect: `xml` DEFLATEd and base64 in the query of `destination`; with a key the
    /// query itself is signed (RSA-SHA256 over `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as sent).
    static func redirectURL(_ destination: String, _ parameter: Parameter, xml: String, relayState: String?,
                            signingKey: _RSA.Signing.PrivateKey?) throws -> String {
        let encoded = Data(Deflate.stored(Array(xml.utf8))).base64EncodedString()
        var query = "\(parameter.rawValue)=\(SAMLAuthnRequest.encode(encoded))"
        if let relayState { query += "&RelayState=\(SAMLAuthnRequest.encode(relayState))" }
        if let signingKey {
            query += "&SigAlg=\(SAMLAuthnRequest.encode(querySignatureAlgorithm.rawValue))"
            let signature = try signingKey.signature(for: SHA256.hash(data: Data(query.utf8)), padding: .insecurePKCS1v1_5)
            query += "&Signature=\(SAMLAuthnRequest.encode(signature.rawRepresentation.base64EncodedString()))"
        }
        return destination + (destination.contains("?") ? "&" : "?") + query
    }

    /// HTTP-POST: the base64 message (with an enveloped signature after its `Issuer` when a key is given).
    static func postValue(xml: String, signingKey: XMLSecurityKey?) throws -> String {
        guard let signingKey else { return Data(xml.utf8).base64EncodedString() }
        let document = try XMLDocument(parsing: Data(xml.utf8))
        guard let root = document.root else { throw XMLSecurityError("the message has no root") }
        try XMLSigner(key: signingKey).sign(root, in: document, after: root.children("Issuer", XMLNamespace.assertion).first)
        return Data(document.serialized(root).utf8).base64EncodedString()
    }

    /// The message XML of a received `SAMLRequest`/`SAMLResponse` value: base64, and for
    /// HTTP-Redirect raw DEFLATE, inflated to at most ``XMLDocument/maximumSize`` bytes.
    static func decode(_ value: String, binding: LogoutMessage.Binding) throws -> Data {
        // A '+' sent without percent-encoding arrives as a space.
        let text = String(value.unicodeScalars.compactMap { scalar -> Character? in
            scalar == " " ? "+" : (CharacterSet.whitespacesAndNewlines.contains(scalar) ? nil : Character(scalar))
        })
        guard text.utf8.count <= XMLDocument.maximumSize * 4 / 3 + 4096 else {
            throw XMLSecurityError("the message is larger than \(XMLDocument.maximumSize) bytes")
        }
        guard let data = Data(base64Encoded: text) else { throw XMLSecurityError("the message is not base64") }
        guard binding == .redirect else { return data }
        return try inflate(data)
    }

    static func inflate(_ data: Data) throws -> Data {
        var output = [UInt8](repeating: 0, count: XMLDocument.maximumSize + 1)
        let written = data.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                czlib_inflate_raw(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, out.baseAddress, out.count)
            }
        }
        switch written {
        case -2: throw XMLSecurityError("the message inflates to more than \(XMLDocument.maximumSize) bytes")
        case ..<0: throw XMLSecurityError("the message is not DEFLATE-compressed")
        default: return Data(output.prefix(written))
        }
    }

    /// The bytes an HTTP-Redirect signature covers: `SAMLRequest` (or `SAMLResponse`), then
    /// `RelayState` when present, then `SigAlg`, each as it appears in `rawQuery` (still
    /// URL-encoded), joined by `&`. Nil when the query lacks one of them or repeats one.
    static func signedQueryPart(_ rawQuery: String, _ parameter: Parameter) -> Data? {
        var raw: [String: String] = [:]
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            guard raw[name] == nil else { return nil }
            raw[name] = parts.count == 2 ? String(parts[1]) : ""
        }
        guard let message = raw[parameter.rawValue], let algorithm = raw["SigAlg"] else { return nil }
        var signed = "\(parameter.rawValue)=\(message)"
        if let relayState = raw["RelayState"] { signed += "&RelayState=\(relayState)" }
        signed += "&SigAlg=\(algorithm)"
        return Data(signed.utf8)
    }
}
