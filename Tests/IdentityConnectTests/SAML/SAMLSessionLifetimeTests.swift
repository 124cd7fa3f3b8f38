import Foundation
import HummingbirdTesting
import IdentityCore
@testable import SAMLConnector
import Testing

/// The SAML session rule (docs/connectors/saml.md, "Sessions"; docs/protocol.md, "Sessions and
/// upstream tokens") with SimpleSAMLphp, whose assertions are good for 5 minutes
/// (Conditions / SubjectConfirmationData NotOnOrAfter) and whose IdP session ends after 8 hours
/// (AuthnStatement SessionNotOnOrAfter).
@Suite("SAML session lifetime against SimpleSAMLphp")
struct SAMLSessionLifetimeTests {
    static func refresh(_ client: any TestClientProtocol, _ token: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token),
                                                   ("client_id", "\(SAMLPeerFixture.appKey).ssp")])
    }

    @Test("the session outlives the 5-minute assertion (validate and the refresh grant work, client_token stays the received assertion) and ends at SessionNotOnOrAfter itself",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func lifetime() async throws {
        let clock = ManualClock(Date())
        let ssp = try #require(try await SAMLPeer.load("IDCONNECT_SAML_SSP_METADATA"))
        let broker = try await SAMLPeerFixture.broker([SAMLPeerFixture.service("ssp", ssp, type: "saml-redirect")], clock: clock)
        try await broker.withClient { client in
            // The IdP stamps the assertion with the real time; on a loaded machine the broker can
            // start longer before the sign-in than the 30 s margin below.
            clock.set(Date())
            let (tokens, view) = try await SAMLPeerFixture.signIn(client, authService: "ssp")
            let assertion = String(decoding: Data(base64Encoded: try #require(view["client_token"] as? String)) ?? Data(), as: UTF8.self)
            let sessionEnd = try #require(SAMLTime.parse(assertion.firstMatch(of: /SessionNotOnOrAfter="([^"]+)"/)?.1.description))
            let acceptanceEnd = try #require(SAMLTime.parse(assertion.firstMatch(of: /\sNotOnOrAfter="([^"]+)"/)?.1.description))
            #expect(acceptanceEnd.timeIntervalSince(clock.now()) <= 330, "SimpleSAMLphp's assertions are good for 5 minutes")
            #expect(sessionEnd.timeIntervalSince(clock.now()) > 7 * 3600, "and its sessions for 8 hours")

            clock.advance(2 * 3600)
            #expect(try await Flows.validate(client, try #require(tokens["access_token"] as? String)).status == .ok)
            let refreshed = try await Self.refresh(client, try #require(tokens["refresh_token"] as? String))
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let access = try #require(refreshed.json["access_token"] as? String)
            let later = try await Flows.validate(client, access)
            #expect(later.json["client_token"] as? String == view["client_token"] as? String, "the assertion that was received")

            // One second before SessionNotOnOrAfter the session lives; at it, it is over (no skew, not early).
            clock.advance(sessionEnd.timeIntervalSince(clock.now()) - 1)
            #expect(try await Flows.validate(client, access).status == .ok)
            clock.advance(1.001)
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            let ended = try await Self.refresh(client, try #require(refreshed.json["refresh_token"] as? String))
            #expect(ended.status == .badRequest && ended.json["error"] as? String == "invalid_grant")
        }
    }
}
