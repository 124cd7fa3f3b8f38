import Foundation

/// The user's NameID exactly as the assertion named it (a LogoutRequest must repeat it).
struct SAMLNameID: Sendable, Codable, Equatable {
    var value: String
    var format: String?
    var nameQualifier: String?
    var spNameQualifier: String?

    var xml: String {
        var attributes = ""
        if let format { attributes += " Format=\"\(XMLText.escape(format))\"" }
        if let nameQualifier { attributes += " NameQualifier=\"\(XMLText.escape(nameQualifier))\"" }
        if let spNameQualifier { attributes += " SPNameQualifier=\"\(XMLText.escape(spNameQualifier))\"" }
        return "<saml:NameID\(attributes)>\(XMLText.escape(value))</saml:NameID>"
    }

    /// Kept in the session's sealed upstream token (`UpstreamToken.extra`) for the logout.
    var extra: [String: String] {
        var extra: [String: String] = [:]
        extra["nameIdFormat"] = format
        extra["nameQualifier"] = nameQualifier
        extra["spNameQualifier"] = spNameQualifier
        return extra
    }

    init(value: String, format: String?, nameQualifier: String? = nil, spNameQualifier: String? = nil) {
        self.value = value
        self.format = format
        self.nameQualifier = nameQualifier
        self.spNameQualifier = spNameQualifier
    }

    /// From a session's user id and the extras ``extra`` wrote (`fallbackFormat` for sessions
    /// stored before they were kept).
    init(userId: String, extra: [String: String], fallbackFormat: String) {
        self.init(value: userId, format: extra["nameIdFormat"] ?? fallbackFormat,
                  nameQualifier: extra["nameQualifier"], spNameQualifier: extra["spNameQualifier"])
    }
}

/// An SP-initiated `LogoutRequest` (SAML Core §3.7.1): ends the user's session at the IdP.
struct SAMLLogoutRequest: Sendable {
    var id: String = SAMLAuthnRequest.newID()
    var issueInstant: Date
    var destination: String
    var issuer: String
    var nameID: SAMLNameID
    var sessionIndex: String?
    /// How long the IdP may act on it.
    static let lifetime: TimeInterval = 300

    var xml: String {
        """
        <samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="\(SAMLTime.format(issueInstant))" Destination="\(XMLText.escape(destination))" \
        NotOnOrAfter="\(SAMLTime.format(issueInstant.addingTimeInterval(Self.lifetime)))">\
        <saml:Issuer>\(XMLText.escape(issuer))</saml:Issuer>\(nameID.xml)\
        \(sessionIndex.map { "<samlp:SessionIndex>\(XMLText.escape($0))</samlp:SessionIndex>" } ?? "")\
        </samlp:LogoutRequest>
        """
    }
}

/// The SP's `LogoutResponse` (SAML Core §3.7.2) to an IdP-initiated LogoutRequest.
struct SAMLLogoutResponse: Sendable {
    var id: String = SAMLAuthnRequest.newID()
    var inResponseTo: String
    var issueInstant: Date
    var destination: String
    var issuer: String
    /// Success, or Responder when the sessions could not be ended.
    var success: Bool

    var xml: String {
        let status = success ? "urn:oasis:names:tc:SAML:2.0:status:Success" : "urn:oasis:names:tc:SAML:2.0:status:Responder"
        return """
        <samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="\(SAMLTime.format(issueInstant))" Destination="\(XMLText.escape(destination))" \
        InResponseTo="\(XMLText.escape(inResponseTo))">\
        <saml:Issuer>\(XMLText.escape(issuer))</saml:Issuer>\
        <samlp:Status><samlp:StatusCode Value="\(status)"/></samlp:Status>\
        </samlp:LogoutResponse>
        """
    }
}
