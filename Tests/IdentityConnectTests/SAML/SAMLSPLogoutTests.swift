import Foundation
import HummingbirdTesting
import IdentityCore
@testable import SAMLConnector
import Testing

/// SP-initiated single logout against a crafted IdP (docs/connectors/saml.md, "Single logout"):
/// what `/oauth/logout` sends, and which LogoutResponses at `/saml/slo` are believed.
@Suite("SAML single logout: SP-initiated")
struct SAMLSPLogoutTests {
    /// Signs in, then asks `/oauth/logout` for a silent logout back to the app: the redirect to the IdP.
    static func logout(_ client: any TestClientProtocol, clock: ManualClock, sessionIndex: String = "idx-7",
                       service: String = "crafted") async throws -> (location: String, tokens: [String: Any]) {
        let (tokens, sso) = try await SAMLCraftedIdP.signIn(client, clock: clock, service: service, sessionIndex: sessionIndex)
        let answer = try await client.get("/oauth/logout?" + formEncode([
            ("id_token_hint", try #require(tokens["id_token"] as? String)), ("post_logout_redirect_uri", TestBroker.redirect),
            ("state", "bye")]), headers: [.cookie: "idc_sso=\(sso)"])
        #expect(answer.status == .found, "\(answer.text.prefix(400))")
        #expect(answer.cookies["idc_sso"] == "")
        return (try #require(answer.location), tokens)
    }

    /// The IdP's answer to the LogoutRequest in `location`, over HTTP-Redirect (signed with `key`).
    static func answer(_ location: String, builder: (inout LogoutMessageBuilder) -> Void = { _ in },
                       key: TestKeyPair? = .idp, clock: ManualClock) throws -> String {
        let request = try SAMLCraftedIdP.redirectMessage(location, "SAMLRequest")
        var response = LogoutMessageBuilder(now: clock.now())
        response.inResponseTo = try #require(request.firstMatch(of: /ID="([^"]+)"/)?.1).description
        builder(&response)
        return "/saml/slo?" + (try LogoutMessageBuilder.redirectQuery(response.responseXML, .response, key: key,
                                                                       relayState: queryItems(location)["RelayState"]))
    }

    @Test("the LogoutRequest: signed query, the NameID and SessionIndex of the sign-in, the IdP's SLO URL; the broker's sessions end at once")
    func request() async throws {
        let clock = ManualClock(Date())
        let broker = try await SAMLCraftedIdP.broker(clock: clock)
        try await broker.withClient { client in
            let (location, tokens) = try await Self.logout(client, clock: clock)
            #expect(location.hasPrefix(SAMLCraftedIdP.slo + "?SAMLRequest="))
            #expect(try SAMLCraftedIdP.signedBySP(location, .request))
            let xml = try SAMLCraftedIdP.redirectMessage(location, "SAMLRequest")
            for part in ["<samlp:LogoutRequest", "Destination=\"\(SAMLCraftedIdP.slo)\"", "NotOnOrAfter=",
                         "<saml:Issuer>http://127.0.0.1:8080/saml/metadata</saml:Issuer>",
                         "Format=\"urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress\">alice@example.org</saml:NameID>",
                         "<samlp:SessionIndex>idx-7</samlp:SessionIndex>"] {
                #expect(xml.contains(part), "\(part) not in \(xml)")
            }
            #expect(try await Flows.validate(client, try #require(tokens["access_token"] as? String)).status == .unauthorized)
        }
    }

    @Test("LogoutResponses: a signed Success leads back to the app with state; unsigned is believed; another key, another request, a replayed or unknown RelayState are refused")
    func responses() async throws {
        let clock = ManualClock(Date())
        let broker = try await SAMLCraftedIdP.broker(clock: clock)
        try await broker.withClient { client in
            var (location, _) = try await Self.logout(client, clock: clock)
            let good = try await client.get(try Self.answer(location, clock: clock))
            #expect(good.status == .found, "\(good.text.prefix(400))")
            #expect(good.location == TestBroker.redirect + "?state=bye")
            let replay = try await client.get(try Self.answer(location, clock: clock))
            #expect(replay.status == .badRequest && replay.text.contains("Unknown or expired sign-out"))

            (location, _) = try await Self.logout(client, clock: clock)
            let unsigned = try await client.get(try Self.answer(location, builder: { $0.status = "urn:oasis:names:tc:SAML:2.0:status:Responder" },
                                                                key: nil, clock: clock))
            #expect(unsigned.location == TestBroker.redirect + "?state=bye", "an IdP that could not log out still ends here")

            (location, _) = try await Self.logout(client, clock: clock)
            let forged = try await client.get(try Self.answer(location, key: .otherIdP, clock: clock))
            #expect(forged.status == .badRequest && forged.location == nil)
            #expect(forged.text.contains("does not verify"))

            (location, _) = try await Self.logout(client, clock: clock)
            let other = try await client.get(try Self.answer(location, builder: { $0.inResponseTo = "_another" }, clock: clock))
            #expect(other.status == .badRequest && other.text.contains("different request"))

            (location, _) = try await Self.logout(client, clock: clock)
            let elsewhere = try await client.get(try Self.answer(location, builder: { $0.destination = "https://sp.example.org/slo" }, clock: clock))
            #expect(elsewhere.status == .badRequest && elsewhere.text.contains("Destination"))

            let unknown = try await client.get("/saml/slo?" + (try LogoutMessageBuilder.redirectQuery(
                LogoutMessageBuilder(now: clock.now()).responseXML, .response, relayState: "no-such-relay-state")))
            #expect(unknown.status == .badRequest && unknown.location == nil)
        }
    }

    @Test("without a single-logout endpoint the logout goes straight back to the app")
    func noEndpoint() async throws {
        let clock = ManualClock(Date())
        let plain = SAMLCraftedIdP.service("plain").replacingOccurrences(of: "logoutUri: \(SAMLCraftedIdP.slo)", with: "nameIdFormat: emailAddress")
        let broker = try await SAMLCraftedIdP.broker(clock: clock, services: [plain])
        try await broker.withClient { client in
            let (location, _) = try await Self.logout(client, clock: clock, service: "plain")
            #expect(location == TestBroker.redirect + "?state=bye")
        }
    }
}
