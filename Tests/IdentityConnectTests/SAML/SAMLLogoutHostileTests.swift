import Foundation
import HummingbirdTesting
import IdentityCore
@testable import SAMLConnector
import Testing

/// IdP-initiated single logout (docs/connectors/saml.md, "Single logout"), the broker against
/// LogoutRequests of every shape from a crafted IdP: only a fresh, correctly signed request
/// addressed to `/saml/slo` ends sessions, once; everything else gets an error page, ends
/// nothing, and is never a 500.
@Suite("SAML single logout: hostile LogoutRequests")
struct SAMLLogoutHostileTests {
    /// Posts (or GETs, for HTTP-Redirect) a message to `/saml/slo` and expects a refusal page.
    static func expectRefused(_ client: any TestClientProtocol, post fields: [(String, String)]? = nil, query: String? = nil,
                              _ what: String, mentioning fragment: String? = nil) async throws {
        let answer = if let fields { try await client.postForm("/saml/slo", fields) } else {
            try await client.get("/saml/slo?" + (query ?? ""))
        }
        #expect(answer.status == .badRequest, "\(what): \(answer.status)")
        #expect(answer.location == nil, "\(what) redirected to \(answer.location ?? "")")
        #expect(answer.cookies["idc_sso"] == nil, "\(what) touched the SSO cookie")
        if let fragment { #expect(answer.text.contains(fragment), "\(what): \(answer.text.prefix(600))") }
    }

    static func stillSignedIn(_ client: any TestClientProtocol, _ tokens: [String: Any], _ what: String) async throws {
        #expect(try await Flows.validate(client, try #require(tokens["access_token"] as? String)).status == .ok, "\(what) ended the session")
    }

    @Test("unsigned, signed by another key, forged query signature, wrong Destination, expired, from the future, wrapped, comment in NameID, DOCTYPE, garbage: refused, nothing ends")
    func refused() async throws {
        let clock = ManualClock(Date())
        let broker = try await SAMLCraftedIdP.broker(clock: clock)
        try await broker.withClient { client in
            let (tokens, _) = try await SAMLCraftedIdP.signIn(client, clock: clock)
            var request = LogoutMessageBuilder(now: clock.now())
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML, key: nil), "unsigned (POST)",
                                         mentioning: "not signed")
            try await Self.expectRefused(client, query: try LogoutMessageBuilder.redirectQuery(request.requestXML, key: nil),
                                         "unsigned (Redirect)", mentioning: "not signed")
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML, key: .otherIdP),
                                         "signed by another key (POST)", mentioning: "does not verify")
            try await Self.expectRefused(client, query: try LogoutMessageBuilder.redirectQuery(request.requestXML, key: .otherIdP),
                                         "signed by another key (Redirect)", mentioning: "does not verify")
            // A genuine query signature, with the message swapped for another one after signing.
            let genuine = try LogoutMessageBuilder.redirectQuery(request.requestXML)
            var bob = request
            bob.nameID = "bob@example.org"
            let swapped = try LogoutMessageBuilder.redirectQuery(bob.requestXML, key: nil)
            let forged = swapped + "&" + genuine.split(separator: "&").filter { $0.hasPrefix("SigAlg=") || $0.hasPrefix("Signature=") }.joined(separator: "&")
            try await Self.expectRefused(client, query: forged, "query signature of another message", mentioning: "does not verify")
            let sha1 = genuine.replacingOccurrences(of: SAMLAuthnRequest.encode(QuerySignatureAlgorithm.rsaSHA256.rawValue),
                                                    with: SAMLAuthnRequest.encode(QuerySignatureAlgorithm.rsaSHA1.rawValue))
            try await Self.expectRefused(client, query: sha1, "SigAlg downgraded to SHA-1", mentioning: "does not verify")
            try await Self.expectRefused(client, query: genuine.replacingOccurrences(of: "rsa-sha256", with: "hmac-sha256"),
                                         "unknown SigAlg", mentioning: "not allowed")

            request.destination = "http://127.0.0.1:8080/elsewhere"
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML), "wrong Destination",
                                         mentioning: "Destination")
            request.destination = nil
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML), "no Destination",
                                         mentioning: "Destination")
            request = LogoutMessageBuilder(now: clock.now())
            request.issued = -600
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML), "issued 10 minutes ago",
                                         mentioning: "expired")
            request = LogoutMessageBuilder(now: clock.now())
            request.notOnOrAfter = -120
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML), "NotOnOrAfter passed",
                                         mentioning: "expired")
            request = LogoutMessageBuilder(now: clock.now())
            request.issued = 600
            try await Self.expectRefused(client, post: try LogoutMessageBuilder.postFields(request.requestXML), "issued in the future",
                                         mentioning: "future")

            // Wrapping: bob's genuinely signed request hidden in Extensions of an unsigned one for alice.
            let signedForBob = try SAMLResponseBuilder.sign(bob.requestXML, key: .idp)
            let aliceUnsigned = LogoutMessageBuilder(now: clock.now()).requestXML
            let wrapped = aliceUnsigned.replacingOccurrences(
                of: "<saml:NameID", with: "<samlp:Extensions>\(signedForBob)</samlp:Extensions><saml:NameID", options: [], range: nil)
            try await Self.expectRefused(client, post: [("SAMLRequest", Data(wrapped.utf8).base64EncodedString())], "wrapped request",
                                         mentioning: "logout request")
            // Bob's signature grafted onto alice's request (it references bob's ID).
            let signature = try #require(SAMLResponseBuilder.signatureRange(in: signedForBob).map { String(signedForBob[$0]) })
            let grafted = aliceUnsigned.replacingOccurrences(of: "</saml:Issuer>", with: "</saml:Issuer>\(signature)")
            try await Self.expectRefused(client, post: [("SAMLRequest", Data(grafted.utf8).base64EncodedString())], "grafted signature")
            // Comment injection: the signature still verifies (c14n drops comments), the request is refused.
            let commented = try SAMLResponseBuilder.sign(LogoutMessageBuilder(now: clock.now()).requestXML, key: .idp)
                .replacingOccurrences(of: "alice@example.org", with: "alice@example<!---->.org")
            try await Self.expectRefused(client, post: [("SAMLRequest", Data(commented.utf8).base64EncodedString())], "comment in NameID",
                                         mentioning: "comments")
            let doctype = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" + commented
            try await Self.expectRefused(client, post: [("SAMLRequest", Data(doctype.utf8).base64EncodedString())], "DOCTYPE",
                                         mentioning: "DOCTYPE")
            try await Self.expectRefused(client, post: [("SAMLRequest", "%%%not-base64")], "not base64")
            try await Self.expectRefused(client, query: "SAMLRequest=" + Data("plain, not deflated".utf8).base64EncodedString()
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, "not DEFLATE")
            let oversized = "<a>" + String(repeating: " ", count: 600 * 1024) + "</a>"
            try await Self.expectRefused(client, post: [("SAMLRequest", Data(oversized.utf8).base64EncodedString())], "600 KiB",
                                         mentioning: "larger than")
            try await Self.expectRefused(client, query: "", "neither request nor response")
            try await Self.stillSignedIn(client, tokens, "a refused request")
        }
    }

    @Test("a signed request ends the NameID's sessions (only the listed SessionIndex) on every instance, is answered with a signed LogoutResponse, and is refused when replayed; both bindings",
          arguments: StoreBackend.allCases)
    func accepted(_ backend: StoreBackend) async throws {
        let clock = ManualClock(Date())
        let audit = FileManager.default.temporaryDirectory.appendingPathComponent("idc-audit-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: audit) }
        let broker = try await SAMLCraftedIdP.broker(clock: clock, auditFile: audit, backend: backend)
        try await broker.withClient { client in
            let first = try await SAMLCraftedIdP.signIn(client, clock: clock, sessionIndex: "idx-1")
            let second = try await SAMLCraftedIdP.signIn(client, clock: clock, sessionIndex: "idx-2")
            let bob = try await SAMLCraftedIdP.signIn(client, clock: clock, nameID: "bob@example.org", sessionIndex: "idx-1")

            var request = LogoutMessageBuilder(now: clock.now())
            request.sessionIndexes = ["idx-1"]
            let fields = try LogoutMessageBuilder.postFields(request.requestXML, relayState: "relay-42")
            let answer = try await client.postForm("/saml/slo", fields)
            #expect(answer.status == .found, "\(answer.text.prefix(600))")
            let location = try #require(answer.location)
            #expect(location.hasPrefix(SAMLCraftedIdP.slo + "?SAMLResponse="))
            #expect(queryItems(location)["RelayState"] == "relay-42")
            #expect(try SAMLCraftedIdP.signedBySP(location, .response))
            let response = try SAMLCraftedIdP.redirectMessage(location, "SAMLResponse")
            #expect(response.contains("InResponseTo=\"\(request.id)\"") && response.contains("status:Success"))
            #expect(response.contains("Destination=\"\(SAMLCraftedIdP.slo)\""))
            #expect(answer.cookies["idc_sso"] == "", "the SSO cookie is cleared")

            #expect(try await Flows.validate(client, try #require(first.tokens["access_token"] as? String)).status == .unauthorized)
            let ended = try AuditLines.read(audit).filter { $0["event"] == "session.ended" }
            #expect(ended.count == 1 && ended.first?["reason"] == "saml_logout", "\(ended)")
            let refresh = try await client.postForm("/oauth/token", [
                ("grant_type", "refresh_token"), ("refresh_token", try #require(first.tokens["refresh_token"] as? String)),
                ("client_id", "\(SAMLPeerFixture.appKey).crafted")])
            #expect(refresh.status == .badRequest)
            try await Self.stillSignedIn(client, second.tokens, "SessionIndex idx-1")
            try await Self.stillSignedIn(client, bob.tokens, "alice's logout")
            // The same request again (replay), while it is still fresh.
            try await Self.expectRefused(client, post: fields, "replayed request", mentioning: "already used")

            // HTTP-Redirect, no SessionIndex: every session of alice; seen from a second instance too.
            let sibling = try await broker.sibling(registry: SAMLPeerFixture.registry)
            let everything = LogoutMessageBuilder(now: clock.now())
            let redirected = try await client.get("/saml/slo?" + (try LogoutMessageBuilder.redirectQuery(everything.requestXML)))
            #expect(redirected.status == .found, "\(redirected.text.prefix(600))")
            let secondAccess = try #require(second.tokens["access_token"] as? String)
            let bobAccess = try #require(bob.tokens["access_token"] as? String)
            try await sibling.withClient { (other: any TestClientProtocol) async throws in
                #expect(try await Flows.validate(other, secondAccess).status == .unauthorized)
                #expect(try await Flows.validate(other, bobAccess).status == .ok, "alice's second logout ended bob's session")
            }
        }
    }
}
