import CryptoExtras
import Crypto
import Foundation
import IdentityCore

/// Builds SP-initiated AuthnRequests and encodes them for the HTTP-Redirect and HTTP-POST
/// bindings (SAML Bindings §3.4, §3.5).
struct SAMLAuthnRequest: Sendable {
    var id: String
    var issueInstant: Date
    var options: SAMLOptions
    /// The IdP's single sign-on URL (configured, or from its metadata).
    var destination: String
    var forceAuthn: Bool

    /// A fresh request id: SAML ids must not start with a digit.
    static func newID() -> String {
        "_" + (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    var xml: String {
        """
        <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="\(SAMLTime.format(issueInstant))" Destination="\(XMLText.escape(destination))" \
        AssertionConsumerServiceURL="\(XMLText.escape(options.assertionConsumerURL))" \
        ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"\(forceAuthn ? " ForceAuthn=\"true\"" : "")>\
        <saml:Issuer>\(XMLText.escape(options.spEntityID))</saml:Issuer>\
        <samlp:NameIDPolicy Format="\(XMLText.escape(options.nameIDFormat))" AllowCreate="true"/>\
        </samlp:AuthnRequest>
        """
    }

    /// HTTP-Redirect: DEFLATE + base64 in the query; with a key, the query itself is signed
    /// (RSA-SHA256 over `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as sent).
    func redirectURL(relayState: String, signingKey: _RSA.Signing.PrivateKey?) throws -> String {
        try SAMLBindings.redirectURL(destination, .request, xml: xml, relayState: relayState, signingKey: signingKey)
    }

    /// HTTP-POST: the base64 request (with an enveloped signature when a key is given).
    func postValue(signingKey: XMLSecurityKey?) throws -> String {
        try SAMLBindings.postValue(xml: xml, signingKey: signingKey)
    }

    static func encode(_ value: String) -> String {
        PercentEncoding.unreserved(value)
    }
}

/// XML character escaping for attribute values and text.
enum XMLText {
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// Raw DEFLATE (RFC 1951) with stored blocks only: valid for every inflater, and SAML requests
/// are small enough that compressing them buys nothing worth a dependency.
enum Deflate {
    static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final = offset + length == bytes.count
            output.append(final ? 1 : 0)
            output += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8((~length >> 8) & 0xff)]
            output += bytes[offset..<offset + length]
            offset += length
        } while offset < bytes.count
        return output
    }
}
