import CXMLSec
import Foundation
import IdentityCore

/// A LogoutRequest from the IdP that passed every check.
struct VerifiedLogoutRequest: Sendable, Equatable {
    var id: String
    var nameID: String
    var sessionIndexes: [String]
    /// How long its id must be remembered (replay).
    var expiresAt: Date
}

/// Checks the logout messages the IdP sends to `/saml/slo` (docs/connectors/saml.md, "Single
/// logout"). A LogoutRequest ends sessions, so it must be signed with one of the IdP's
/// certificates (the query signature of HTTP-Redirect, or an enveloped signature on the request
/// itself for HTTP-POST, so the signed element is the one read), name this SP's SLO URL as its
/// `Destination`, and be fresh (`IssueInstant` at most ``maximumAge`` old, `NotOnOrAfter` not
/// passed, with `clockSkew`). A LogoutResponse only decides which page follows, so its signature
/// is checked when it has one.
struct SAMLLogoutValidator: Sendable {
    let idp: SAMLIdentityProvider
    let singleLogoutURL: String
    let clockSkew: TimeInterval

    /// How old a LogoutRequest's `IssueInstant` may be: it is carried by the browser right away.
    static let maximumAge: TimeInterval = 300

    enum RequestVerdict: Sendable, Equatable {
        /// It names another IdP as its issuer.
        case notForThisIdP
        case refused(String)
        case accepted(VerifiedLogoutRequest)
    }

    func checkRequest(_ message: LogoutMessage, now: Date) -> RequestVerdict {
        do {
            guard let encoded = message.parameters[SAMLBindings.Parameter.request.rawValue] else {
                return .refused("The message carries no SAMLRequest.")
            }
            let document = try XMLDocument(parsing: try SAMLBindings.decode(encoded, binding: message.binding))
            guard let root = document.root, root.isElement("LogoutRequest", XMLNamespace.protocol_) else {
                return .refused("The message is not a SAML LogoutRequest.")
            }
            if let expected = idp.entityID, let issuer = try issuer(of: root), issuer != expected { return .notForThisIdP }
            if let refusal = try signatureRefusal(message, .request, root, document, required: true) { return .refused(refusal) }
            return checkContent(root, now: now)
        } catch {
            return .refused("The logout request is not acceptable: \(Self.describe(error)).")
        }
    }

    /// What a signed, well-formed LogoutRequest says, when it is addressed here and fresh.
    private func checkContent(_ root: xmlNodePtr, now: Date) -> RequestVerdict {
        guard root.attribute("Version") == "2.0", let id = root.attribute("ID"), !id.isEmpty, id.utf8.count <= 256 else {
            return .refused("The logout request has no ID or is not version 2.0.")
        }
        guard root.attribute("Destination") == singleLogoutURL else {
            return .refused("The logout request is addressed to another service (Destination).")
        }
        guard let issued = SAMLTime.parse(root.attribute("IssueInstant")) else {
            return .refused("The logout request has no IssueInstant.")
        }
        guard issued <= now.addingTimeInterval(clockSkew) else { return .refused("The logout request was issued in the future.") }
        var end = issued.addingTimeInterval(Self.maximumAge)
        if let text = root.attribute("NotOnOrAfter") {
            guard let notOnOrAfter = SAMLTime.parse(text) else { return .refused("The logout request's NotOnOrAfter is not a date.") }
            end = min(end, notOnOrAfter)
        }
        guard now < end.addingTimeInterval(clockSkew) else { return .refused("The logout request has expired.") }
        guard !root.containsCommentOrInstruction else {
            return .refused("The logout request contains comments or processing instructions, which no signature covers.")
        }
        guard root.children("EncryptedID", XMLNamespace.assertion).isEmpty, root.children("BaseID", XMLNamespace.assertion).isEmpty else {
            return .refused("Logout requests naming the user by EncryptedID or BaseID are not supported.")
        }
        let nameIDs = root.children("NameID", XMLNamespace.assertion)
        guard nameIDs.count == 1, let nameID = nameIDs[0].textOnly?.trimmingCharacters(in: .whitespacesAndNewlines),
              !nameID.isEmpty, nameID.utf8.count <= 1024 else {
            return .refused("The logout request must name one user (NameID).")
        }
        var indexes: [String] = []
        for node in root.children("SessionIndex", XMLNamespace.protocol_) {
            guard let index = node.textOnly?.trimmingCharacters(in: .whitespacesAndNewlines), !index.isEmpty, index.utf8.count <= 1024 else {
                return .refused("A SessionIndex of the logout request is empty or not plain text.")
            }
            indexes.append(index)
        }
        guard indexes.count <= 100 else { return .refused("The logout request lists too many SessionIndex values.") }
        return .accepted(VerifiedLogoutRequest(id: id, nameID: nameID, sessionIndexes: indexes, expiresAt: end.addingTimeInterval(clockSkew)))
    }

    /// The IdP's answer to the LogoutRequest `requestID`.
    func checkResponse(_ message: LogoutMessage, requestID: String) -> UpstreamLogoutResult {
        do {
            guard let encoded = message.parameters[SAMLBindings.Parameter.response.rawValue] else {
                return .refused("The message carries no SAMLResponse.")
            }
            let document = try XMLDocument(parsing: try SAMLBindings.decode(encoded, binding: message.binding))
            guard let root = document.root, root.isElement("LogoutResponse", XMLNamespace.protocol_),
                  root.attribute("Version") == "2.0" else {
                return .refused("The identity provider's answer is not a SAML 2.0 LogoutResponse.")
            }
            guard root.attribute("InResponseTo") == requestID else {
                return .refused("The logout response answers a different request.")
            }
            if let destination = root.attribute("Destination"), destination != singleLogoutURL {
                return .refused("The logout response is addressed to another service (Destination).")
            }
            if let expected = idp.entityID, let issuer = try issuer(of: root), issuer != expected {
                return .refused("The logout response comes from another identity provider.")
            }
            if let refusal = try signatureRefusal(message, .response, root, document, required: false) { return .refused(refusal) }
            return try status(of: root)
        } catch {
            return .refused("The logout response is not acceptable: \(Self.describe(error)).")
        }
    }

    private func issuer(of root: xmlNodePtr) throws -> String? {
        try root.onlyChild("Issuer", XMLNamespace.assertion)?.textOnly?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Why the message's signature is not acceptable, or nil when it verifies (or, when not
    /// `required`, is absent).
    private func signatureRefusal(_ message: LogoutMessage, _ parameter: SAMLBindings.Parameter, _ root: xmlNodePtr,
                                  _ document: XMLDocument, required: Bool) throws -> String? {
        let what = parameter == .request ? "logout request" : "logout response"
        switch message.binding {
        case .redirect:
            guard let signature = message.parameters["Signature"] else { return required ? "The \(what) is not signed." : nil }
            guard let name = message.parameters["SigAlg"], let algorithm = QuerySignatureAlgorithm(rawValue: name),
                  let signed = message.rawQuery.flatMap({ SAMLBindings.signedQueryPart($0, parameter) }),
                  let bytes = Data(base64Encoded: signature.replacingOccurrences(of: " ", with: "+")) else {
                return "The \(what)'s signature is malformed or uses an algorithm that is not allowed."
            }
            return idp.queryVerifier.verify(signed, signature: bytes, algorithm: algorithm)
                ? nil : "The \(what)'s signature does not verify with the IdP certificate."
        case .post:
            switch try idp.verifier.verify(root, in: document) {
            case .valid: return nil
            case .unsigned: return required ? "The \(what) is not signed." : nil
            }
        }
    }

    /// `Success` (and no `PartialLogout` inside it) completes; any other status is reported by its codes.
    private func status(of root: xmlNodePtr) throws -> UpstreamLogoutResult {
        guard let status = try root.onlyChild("Status", XMLNamespace.protocol_),
              let code = try status.onlyChild("StatusCode", XMLNamespace.protocol_), let value = code.attribute("Value") else {
            return .refused("The logout response has no status.")
        }
        let detail = try code.onlyChild("StatusCode", XMLNamespace.protocol_)?.attribute("Value")
        if value == "urn:oasis:names:tc:SAML:2.0:status:Success" && detail != "urn:oasis:names:tc:SAML:2.0:status:PartialLogout" {
            return .completed
        }
        let codes = [value, detail].compactMap { $0?.split(separator: ":").last.map(String.init) }
            .filter { $0.allSatisfy { $0.isLetter || $0.isNumber } && $0.count <= 64 }.joined(separator: ": ")
        return .incomplete(codes.isEmpty ? "unknown status" : codes)
    }

    static func describe(_ error: any Error) -> String {
        (error as? XMLSecurityError)?.description ?? "\(error)"
    }
}
