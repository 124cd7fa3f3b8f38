import CXMLSec
import Foundation
import IdentityCore

/// Why a SAML response was not accepted. `message` is safe to show and to log.
struct SAMLRejection: Error, Equatable {
    /// The IdP answered, but not with a sign-in (StatusCode other than Success).
    var fromIdP: Bool
    var message: String

    static func invalid(_ message: String) -> SAMLRejection { SAMLRejection(fromIdP: false, message: message) }
}

/// Checks a SAML `Response` exactly as docs/connectors/saml.md, "What the ACS checks", lists:
/// signature with the configured certificates only, the signed element being the one used,
/// InResponseTo, Destination, Recipient, Audience, time conditions with skew, and decryption of
/// `EncryptedAssertion`.
struct SAMLResponseValidator: Sendable {
    /// What the response must match.
    struct Expectation: Sendable {
        var requestID: String
        var assertionConsumerURL: String
        var spEntityID: String
        var now: Date
        var clockSkew: TimeInterval = 60
    }

    var verifier: XMLSignatureVerifier
    /// Needed only for encrypted assertions.
    var decryptor: XMLDecryptor?
    var wantAssertionsSigned: Bool

    func validate(_ xml: Data, _ expected: Expectation) throws(SAMLRejection) -> SAMLAssertion {
        do {
            return try check(try XMLDocument(parsing: xml), expected)
        } catch let rejection as SAMLRejection {
            throw rejection
        } catch let error as XMLSecurityError {
            throw .invalid("The SAML response is not acceptable: \(error.description).")
        } catch {
            throw .invalid("The SAML response is not acceptable.")
        }
    }

    private func check(_ document: XMLDocument, _ expected: Expectation) throws -> SAMLAssertion {
        guard let response = document.root, response.isElement("Response", XMLNamespace.protocol_) else {
            throw SAMLRejection.invalid("The message is not a SAML Response.")
        }
        guard response.attribute("Version") == "2.0" else { throw SAMLRejection.invalid("The SAML response is not version 2.0.") }
        guard let inResponseTo = response.attribute("InResponseTo") else {
            throw SAMLRejection.invalid("Unsolicited SAML responses are not accepted; start the sign-in from the app.")
        }
        guard inResponseTo == expected.requestID else {
            throw SAMLRejection.invalid("The SAML response answers a different sign-in request.")
        }
        if let destination = response.attribute("Destination"), destination != expected.assertionConsumerURL {
            throw SAMLRejection.invalid("The SAML response is addressed to another service (Destination).")
        }
        try checkStatus(response)
        let responseSigned = try verifier.verify(response, in: document) == .valid
        if responseSigned && response.attribute("Destination") == nil {
            throw SAMLRejection.invalid("A signed SAML response must name its Destination.")
        }
        let assertion: xmlNodePtr, assertionSigned: Bool
        do {
            assertion = try theAssertion(of: response, in: document)
            assertionSigned = try verifier.verify(assertion, in: document) == .valid
            guard responseSigned || assertionSigned else { throw SAMLRejection.invalid("The SAML response is not signed.") }
        } catch where !responseSigned && !response.children("EncryptedAssertion", XMLNamespace.assertion).isEmpty {
            // Nothing authenticated the ciphertext yet: telling a padding failure from bad XML or
            // a missing signature would be a decryption oracle (Jager & Somorovsky), so one answer.
            throw SAMLRejection.invalid("The encrypted SAML assertion could not be decrypted and verified.")
        }
        if wantAssertionsSigned && !assertionSigned { throw SAMLRejection.invalid("The SAML assertion is not signed.") }
        if assertion.containsCommentOrInstruction {
            throw SAMLRejection.invalid("The SAML assertion contains comments or processing instructions, which no signature covers.")
        }
        if let responseIssuer = try response.onlyChild("Issuer", XMLNamespace.assertion)?.textOnly,
           let assertionIssuer = try assertion.onlyChild("Issuer", XMLNamespace.assertion)?.textOnly,
           responseIssuer != assertionIssuer {
            throw SAMLRejection.invalid("The SAML response and its assertion name different issuers.")
        }
        return try read(assertion, in: document, expected, confirmationMustAnswerRequest: !responseSigned)
    }

    private func checkStatus(_ response: xmlNodePtr) throws {
        guard let status = try response.onlyChild("Status", XMLNamespace.protocol_),
              let code = try status.onlyChild("StatusCode", XMLNamespace.protocol_),
              let value = code.attribute("Value") else {
            throw SAMLRejection.invalid("The SAML response has no status.")
        }
        guard value == "urn:oasis:names:tc:SAML:2.0:status:Success" else {
            // Only the status codes, as their last URN segment: StatusMessage is free text from a
            // message nobody has authenticated yet, and is not shown to the user.
            let detail = try code.onlyChild("StatusCode", XMLNamespace.protocol_)?.attribute("Value")
            let reason = [value, detail].compactMap { $0?.split(separator: ":").last.map(String.init) }
                .filter { $0.allSatisfy { $0.isLetter || $0.isNumber } && $0.count <= 64 }.joined(separator: ": ")
            throw SAMLRejection(fromIdP: true, message: "The identity provider did not sign you in\(reason.isEmpty ? "" : " (\(reason))").")
        }
    }

    /// The single assertion (decrypted when encrypted) that is a direct child of the Response.
    private func theAssertion(of response: xmlNodePtr, in document: XMLDocument) throws -> xmlNodePtr {
        let plain = response.children("Assertion", XMLNamespace.assertion)
        let encrypted = response.children("EncryptedAssertion", XMLNamespace.assertion)
        guard plain.count + encrypted.count == 1 else {
            throw SAMLRejection.invalid("The SAML response must hold exactly one assertion.")
        }
        if let assertion = plain.first { return assertion }
        guard let decryptor else {
            throw SAMLRejection.invalid("The assertion is encrypted but no SP key is configured to decrypt it.")
        }
        return try decryptor.decrypt(encrypted[0], in: document)
    }
}

extension SAMLResponseValidator {
    /// Subject, conditions, audience and attributes of a verified assertion.
    /// `confirmationMustAnswerRequest`: when only the assertion is signed, the Response's
    /// InResponseTo is not covered by any signature, so the assertion itself must name the request
    /// (an IdP-initiated assertion must not be wrapped into a forged answer to someone's request).
    fileprivate func read(_ assertion: xmlNodePtr, in document: XMLDocument, _ expected: Expectation,
                          confirmationMustAnswerRequest: Bool) throws -> SAMLAssertion {
        let now = expected.now
        let skew = expected.clockSkew
        guard assertion.attribute("Version") == "2.0", let id = assertion.attribute("ID"), !id.isEmpty else {
            throw SAMLRejection.invalid("The SAML assertion has no ID or is not version 2.0.")
        }
        guard let subject = try assertion.onlyChild("Subject", XMLNamespace.assertion),
              let nameIDNode = try subject.onlyChild("NameID", XMLNamespace.assertion) else {
            throw SAMLRejection.invalid("The SAML assertion names no subject (NameID).")
        }
        guard let nameID = nameIDNode.textOnly?.trimmingCharacters(in: .whitespacesAndNewlines), !nameID.isEmpty,
              nameID.utf8.count <= 1024 else {
            throw SAMLRejection.invalid("The NameID must be plain, non-empty text.")
        }
        var confirmedUntil: Date?
        for confirmation in subject.children("SubjectConfirmation", XMLNamespace.assertion)
            where confirmation.attribute("Method") == "urn:oasis:names:tc:SAML:2.0:cm:bearer" {
            guard let data = try confirmation.onlyChild("SubjectConfirmationData", XMLNamespace.assertion),
                  data.attribute("Recipient") == expected.assertionConsumerURL,
                  let notOnOrAfter = SAMLTime.parse(data.attribute("NotOnOrAfter")), now < notOnOrAfter.addingTimeInterval(skew),
                  data.attribute("InResponseTo").map({ $0 == expected.requestID }) ?? !confirmationMustAnswerRequest,
                  SAMLTime.parse(data.attribute("NotBefore")).map({ $0 <= now.addingTimeInterval(skew) }) ?? true else { continue }
            confirmedUntil = notOnOrAfter
        }
        guard let confirmedUntil else {
            throw SAMLRejection.invalid("The SAML assertion has no valid bearer confirmation for this service (Recipient, time, InResponseTo).")
        }
        guard let conditions = try assertion.onlyChild("Conditions", XMLNamespace.assertion) else {
            throw SAMLRejection.invalid("The SAML assertion has no Conditions.")
        }
        if let notBefore = conditions.attribute("NotBefore") {
            guard let date = SAMLTime.parse(notBefore), date <= now.addingTimeInterval(skew) else {
                throw SAMLRejection.invalid("The SAML assertion is not valid yet.")
            }
        }
        var conditionsEnd: Date?
        if let notOnOrAfter = conditions.attribute("NotOnOrAfter") {
            guard let date = SAMLTime.parse(notOnOrAfter), now < date.addingTimeInterval(skew) else {
                throw SAMLRejection.invalid("The SAML assertion has expired.")
            }
            conditionsEnd = date
        }
        let restrictions = conditions.children("AudienceRestriction", XMLNamespace.assertion)
        guard !restrictions.isEmpty, restrictions.allSatisfy({ restriction in
            restriction.children("Audience", XMLNamespace.assertion).contains { $0.textOnly == expected.spEntityID }
        }) else {
            throw SAMLRejection.invalid("The SAML assertion is meant for another service (Audience).")
        }
        let sessionNotOnOrAfter = try assertion.children("AuthnStatement", XMLNamespace.assertion)
            .compactMap { $0.attribute("SessionNotOnOrAfter") }.map { text -> Date in
                guard let date = SAMLTime.parse(text) else { throw SAMLRejection.invalid("SessionNotOnOrAfter is not a date.") }
                return date
            }.min()
        if let sessionNotOnOrAfter, sessionNotOnOrAfter <= now {
            throw SAMLRejection.invalid("The SAML session has already ended.")
        }
        let sessionIndex = assertion.children("AuthnStatement", XMLNamespace.assertion).lazy
            .compactMap { $0.attribute("SessionIndex") }.first { !$0.isEmpty && $0.utf8.count <= 1024 }
        return SAMLAssertion(
            id: id, nameID: nameID, nameIDFormat: nameIDNode.attribute("Format"),
            nameQualifier: nameIDNode.attribute("NameQualifier"), spNameQualifier: nameIDNode.attribute("SPNameQualifier"),
            sessionIndex: sessionIndex, attributes: try attributes(of: assertion),
            sessionEnd: sessionNotOnOrAfter, replayExpiry: max(conditionsEnd ?? confirmedUntil, confirmedUntil).addingTimeInterval(skew),
            xml: Self.standalone(assertion))
    }

    private func attributes(of assertion: xmlNodePtr) throws -> [String: JSONValue] {
        var attributes: [String: JSONValue] = [:]
        for statement in assertion.children("AttributeStatement", XMLNamespace.assertion) {
            for attribute in statement.children("Attribute", XMLNamespace.assertion) {
                guard let name = attribute.attribute("FriendlyName") ?? attribute.attribute("Name"),
                      !name.isEmpty, name.utf8.count <= 256 else { continue }
                let values = attribute.children("AttributeValue", XMLNamespace.assertion).compactMap(\.textOnly)
                    .map { JSONValue.string($0) }
                guard !values.isEmpty else { continue }
                attributes[name] = values.count == 1 ? values[0] : .array(values)
            }
        }
        SAMLAttributeNames.addWellKnown(to: &attributes)
        return attributes
    }

    /// The assertion as a document of its own, namespaces it inherits declared on it.
    static func standalone(_ assertion: xmlNodePtr) -> String {
        guard let copy = xmlNewDoc(nil) else { return "" }
        defer { xmlFreeDoc(copy) }
        guard let node = xmlDocCopyNode(assertion, copy, 1) else { return "" }
        xmlDocSetRootElement(copy, node)
        xmlReconciliateNs(copy, node)
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        xmlNodeDump(buffer, copy, node, 0, 0)
        return xmlBufferContent(buffer).map { String(cString: $0) } ?? ""
    }
}
