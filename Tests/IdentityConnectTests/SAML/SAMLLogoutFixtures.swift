import CryptoExtras
import Foundation
import HummingbirdTesting
import IdentityCore
@testable import SAMLConnector
import Testing

/// A broker whose SAML auth service trusts ``TestKeyPair/idp`` (hand-copied options, no peer), so
/// that tests can play the IdP: answer its AuthnRequests with Responses built by
/// ``SAMLResponseBuilder`` and send it LogoutRequests and LogoutResponses of every shape.
enum SAMLCraftedIdP {
    static let sso = "https://idp.example.org/sso"
    static let slo = "https://idp.example.org/slo"
    static let spSLO = "http://127.0.0.1:8080/saml/slo"

    /// A `saml-post` auth service at the crafted IdP, the SP key pair configured.
    static func service(_ id: String, extra: [String] = []) -> String {
        let pem = TestKeyPair.idp.certificatePEM.split(separator: "\n").map { "              \($0)" }.joined(separator: "\n")
        func block(_ text: String) -> String { text.split(separator: "\n").map { "              \($0)" }.joined(separator: "\n") }
        let options = (["logoutUri: \(slo)", "signRequests: true"] + extra).map { "            \($0)\n" }.joined()
        return """
              - id: \(id)
                redirectUri: [ "\(TestBroker.redirect)" ]
                tokenTtl: 86400
                provider:
                  type: saml-post
                  remoteService: "\(sso)"
                  options:
                    idpCertificate: |
        \(pem)
                    spPrivateKey: |
        \(block(TestKeyPair.sp.privateKeyPEM))
                    spCertificate: |
        \(block(TestKeyPair.sp.certificatePEM))
        \(options)          allowedAttributes: [ id, email, name, groups, client_token ]
        """
    }

    static func broker(clock: ManualClock = ManualClock(Date()), services: [String] = [service("crafted")],
                       auditFile: String? = nil, backend: StoreBackend = .sqlite) async throws -> TestBroker {
        try await SAMLPeerFixture.broker(services, clock: clock, auditFile: auditFile, backend: backend)
    }

    /// A whole sign-in as `nameID` with IdP session `sessionIndex`: the tokens and the SSO cookie.
    static func signIn(_ client: any TestClientProtocol, clock: ManualClock, service: String = "crafted",
                       nameID: String = "alice@example.org", sessionIndex: String? = "idx-1") async throws -> (tokens: [String: Any], sso: String) {
        let query = [("client_id", "\(SAMLPeerFixture.appKey).\(service)"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                     ("state", "app-state"), ("scope", "openid"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
        let start = try await client.get("/oauth/auth?" + formEncode(query), headers: [.cookie: SAMLPeerFixture.browserCookie])
        let fields = SAMLBindingSecurityTests.formFields(start.text)
        let requestXML = String(decoding: Data(base64Encoded: try #require(fields.first { $0.0 == "SAMLRequest" }?.1)) ?? Data(), as: UTF8.self)
        let requestID = try #require(requestXML.firstMatch(of: /ID="([^"]+)"/)?.1).description
        var builder = SAMLResponseBuilder(now: clock.now())
        builder.requestID = requestID
        builder.inResponseTo = requestID
        builder.assertionID = "_assertion-" + Secrets.randomToken(bytes: 8)
        builder.nameID = nameID
        builder.sessionIndex = sessionIndex
        let response = try builder.responseXML()
        let answer = try await SAMLPeerFixture.postToACS(client, [("SAMLResponse", Data(response.utf8).base64EncodedString()),
                                                                  ("RelayState", try #require(fields.first { $0.0 == "RelayState" }?.1))])
        let location = try #require(answer.location, "\(answer.text.prefix(300))")
        let code = try #require(queryItems(location)["code"])
        let exchange = try await client.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
            ("client_id", "\(SAMLPeerFixture.appKey).\(service)"), ("code_verifier", Flows.verifier)])
        #expect(exchange.status == .ok)
        return (exchange.json, try #require(answer.cookies["idc_sso"]))
    }

    /// The SAML message in an HTTP-Redirect URL's `parameter`, inflated.
    static func redirectMessage(_ url: String, _ parameter: String) throws -> String {
        let value = try #require(queryItems(url)[parameter])
        return String(decoding: try SAMLBindings.inflate(try #require(Data(base64Encoded: value))), as: UTF8.self)
    }

    /// Whether the query signature of a URL the broker sent verifies with the SP certificate.
    static func signedBySP(_ url: String, _ parameter: SAMLBindings.Parameter) throws -> Bool {
        let query = try #require(URLComponents(string: url)?.percentEncodedQuery)
        let signed = try #require(SAMLBindings.signedQueryPart(query, parameter))
        let text = try #require(queryItems(url)["Signature"])
        let signature = try #require(Data(base64Encoded: text))
        return try QuerySignatureVerifier(certificates: [TestKeyPair.sp.certificatePEM], allowSHA1: false)
            .verify(signed, signature: signature, algorithm: .rsaSHA256)
    }
}

/// LogoutRequests and LogoutResponses as an IdP writes them, one property changed per test.
struct LogoutMessageBuilder {
    var now: Date
    var id = "_logout-" + Secrets.randomToken(bytes: 8)
    var destination: String? = SAMLCraftedIdP.spSLO
    var issuer = SAMLResponseBuilder.idpEntity
    var nameID = "alice@example.org"
    var sessionIndexes: [String] = []
    var issued: TimeInterval = 0
    var notOnOrAfter: TimeInterval? = 120
    /// For a LogoutResponse.
    var inResponseTo = ""
    var status = "urn:oasis:names:tc:SAML:2.0:status:Success"

    func time(_ offset: TimeInterval) -> String { SAMLTime.format(now.addingTimeInterval(offset)) }

    var requestXML: String {
        """
        <samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="\(time(issued))"\(destination.map { " Destination=\"\($0)\"" } ?? "")\
        \(notOnOrAfter.map { " NotOnOrAfter=\"\(time(issued + $0))\"" } ?? "")>\
        <saml:Issuer>\(issuer)</saml:Issuer>\
        <saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">\(nameID)</saml:NameID>\
        \(sessionIndexes.map { "<samlp:SessionIndex>\($0)</samlp:SessionIndex>" }.joined())</samlp:LogoutRequest>
        """
    }

    var responseXML: String {
        """
        <samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
        ID="\(id)" Version="2.0" IssueInstant="\(time(issued))"\(destination.map { " Destination=\"\($0)\"" } ?? "") \
        InResponseTo="\(inResponseTo)"><saml:Issuer>\(issuer)</saml:Issuer>\
        <samlp:Status><samlp:StatusCode Value="\(status)"/></samlp:Status></samlp:LogoutResponse>
        """
    }

    /// HTTP-POST fields: the XML signed (enveloped) with `key`, or unsigned when nil.
    static func postFields(_ xml: String, _ parameter: String = "SAMLRequest", key: TestKeyPair? = .idp,
                           relayState: String = "idp-relay") throws -> [(String, String)] {
        let message = try key.map { try SAMLResponseBuilder.sign(xml, key: $0) } ?? xml
        return [(parameter, Data(message.utf8).base64EncodedString()), ("RelayState", relayState)]
    }

    /// The HTTP-Redirect query: DEFLATE + base64, its query signed with `key` (RSA-SHA256) or unsigned.
    static func redirectQuery(_ xml: String, _ parameter: SAMLBindings.Parameter = .request, key: TestKeyPair? = .idp,
                              relayState: String? = "idp-relay") throws -> String {
        let signing = try key.map { try _RSA.Signing.PrivateKey(pemRepresentation: $0.privateKeyPEM) }
        let url = try SAMLBindings.redirectURL("https://x.invalid/", parameter, xml: xml, relayState: relayState, signingKey: signing)
        return String(url.dropFirst("https://x.invalid/?".count))
    }
}
