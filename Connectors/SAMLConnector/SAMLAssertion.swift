import CXMLSec
import Foundation
import IdentityCore

/// What a validated SAML response says about the user.
struct SAMLAssertion: Sendable, Equatable {
    /// The assertion's `ID` (remembered until `replayExpiry` to refuse a replay).
    var id: String
    var nameID: String
    var nameIDFormat: String?
    /// The NameID's `NameQualifier` and `SPNameQualifier`: a LogoutRequest must name the user
    /// exactly as the assertion did.
    var nameQualifier: String? = nil
    var spNameQualifier: String? = nil
    /// The AuthnStatement's `SessionIndex`: which of the user's IdP sessions a logout ends.
    var sessionIndex: String? = nil
    /// Attributes by `FriendlyName` (else `Name`): one value as a string, several as an array.
    var attributes: [String: JSONValue]
    /// When the IdP ends the sign-in: the AuthnStatement's `SessionNotOnOrAfter`, when present.
    /// The `NotOnOrAfter` of Conditions and SubjectConfirmationData only bound when the Response
    /// may be accepted at the ACS; they never end a session (docs/connectors/saml.md, "Sessions").
    var sessionEnd: Date?
    /// How long the assertion id must be remembered.
    var replayExpiry: Date
    /// The assertion as XML (decrypted when it came encrypted), for `client_token`.
    var xml: String
}

/// Attribute names IdPs commonly use for the claims the broker knows (email, name, groups).
enum SAMLAttributeNames {
    static let email = ["email", "mail", "emailAddress", "urn:oid:0.9.2342.19200300.100.1.3",
                        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"]
    /// Entra ID's `…/identity/claims/displayname` before the `…/claims/name` that Entra fills
    /// with the user principal name (AD FS with the display name).
    static let name = ["name", "displayName", "cn", "urn:oid:2.16.840.1.113730.3.1.241", "urn:oid:2.5.4.3",
                       "http://schemas.microsoft.com/identity/claims/displayname",
                       "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"]
    /// Entra ID's groups claim, and AD FS's `Group` claim type.
    static let groups = ["groups", "memberOf", "eduPersonAffiliation", "urn:oid:1.3.6.1.4.1.5923.1.1.1.1",
                         "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups", "http://schemas.xmlsoap.org/claims/Group"]

    /// Adds `email`, `name` and `groups` from the first well-known attribute present.
    static func addWellKnown(to attributes: inout [String: JSONValue]) {
        let known = attributes
        func first(_ names: [String]) -> JSONValue? { names.lazy.compactMap { known[$0] }.first }
        if attributes["email"] == nil, let value = first(email) { attributes["email"] = value.firstString.map(JSONValue.string) }
        if attributes["name"] == nil, let value = first(name) { attributes["name"] = value.firstString.map(JSONValue.string) }
        if attributes["groups"] == nil, let value = first(groups) {
            switch value {
            case .array: attributes["groups"] = value
            default: attributes["groups"] = .array([value])
            }
        }
    }
}

extension JSONValue {
    var firstString: String? {
        if case .array(let values) = self { return values.first?.stringValue }
        return stringValue
    }
}

/// SAML timestamps: `xs:dateTime` in UTC, with or without fractional seconds.
enum SAMLTime {
    static func parse(_ text: String?) -> Date? {
        guard let text, text.utf8.count <= 64 else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
