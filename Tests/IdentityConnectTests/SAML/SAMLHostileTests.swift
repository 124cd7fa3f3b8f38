import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// The hostile corpus of docs/connectors/saml.md, "What the ACS checks", built from real signed
/// Responses of the pysaml2 IdP and posted to the broker's ACS: every variant must end without a
/// code.
@Suite("SAML hostile corpus through the ACS")
struct SAMLHostileTests {
    /// A real Response to one sign-in started at the broker: its XML and RelayState.
    struct Captured {
        var xml: String
        var relayState: String

        var fields: [(String, String)] { [("SAMLResponse", Data(xml.utf8).base64EncodedString()), ("RelayState", relayState)] }

        /// `xml` with every match of `pattern` replaced by `template` (regex, `$1` for groups).
        func replacing(_ pattern: String, with template: String) -> String {
            let regex = try! NSRegularExpression(pattern: pattern)
            return regex.stringByReplacingMatches(in: xml, range: NSRange(xml.startIndex..., in: xml), withTemplate: template)
        }

        /// The first match of `pattern` (the whole match).
        func first(_ pattern: String) -> String? {
            let regex = try! NSRegularExpression(pattern: pattern)
            guard let match = regex.firstMatch(in: xml, range: NSRange(xml.startIndex..., in: xml)),
                  let range = Range(match.range, in: xml) else { return nil }
            return String(xml[range])
        }
    }

    static let signature = #"<(\w+:)?Signature[\s>][\s\S]*?</\1Signature>"#
    static let assertion = #"<(\w+:)?Assertion[\s>][\s\S]*</\1Assertion>"#
    static let nameID = #"(<(\w+:)?NameID[^>]*>)alice@example.org(</)"#

    static func capture(_ client: any TestClientProtocol, service: String = "p2") async throws -> Captured {
        let fields = try await SAMLPeerFixture.responseFields(client, authService: service)
        let encoded = try #require(fields.first { $0.0 == "SAMLResponse" }?.1)
        return Captured(xml: String(decoding: try #require(Data(base64Encoded: encoded)), as: UTF8.self),
                        relayState: try #require(fields.first { $0.0 == "RelayState" }?.1))
    }

    /// Posts `fields` and expects no code: a redirect with `error`, or an error page.
    static func expectRefused(_ client: any TestClientProtocol, _ fields: [(String, String)], _ what: String,
                              mentioning fragment: String? = nil) async throws {
        let answer = try await SAMLPeerFixture.postToACS(client, fields)
        #expect(answer.status != .internalServerError, "\(what)")
        if let location = answer.location {
            #expect(queryItems(location)["code"] == nil, "\(what) produced a code")
            #expect(queryItems(location)["error"] == "access_denied", "\(what): \(location)")
            if let fragment {
                #expect(queryItems(location)["error_description"]?.contains(fragment) == true, "\(what): \(location)")
            }
        } else {
            #expect(answer.status == .badRequest, "\(what): \(answer.status)")
        }
    }

    static func broker(clock: ManualClock = ManualClock(Date())) async throws -> TestBroker? {
        guard let peer = try await SAMLPeer.load("IDCONNECT_SAML_P2_METADATA") else { return nil }
        let other = try String(contentsOfFile: try #require(SAMLPeerFixture.spCertPath), encoding: .utf8)
        return try await SAMLPeerFixture.broker([
            SAMLPeerFixture.service("p2", peer, type: "saml-post", extra: ["logoutUri: \"http://127.0.0.1:8490/slo\""]),
            SAMLPeerFixture.service("p2-wrongcert", peer, type: "saml-post", certificate: other),
        ], clock: clock)
    }

    @Test("tampered NameID, attribute, Destination and Audience; signatures removed; wrapping; second assertion; comment in NameID; DOCTYPE; 5 MB; wrong certificate",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func tampering() async throws {
        let broker = try #require(try await Self.broker())
        try await broker.withClient { client in
            // The untouched response is accepted: the corpus below differs from it in one way each.
            let genuine = try await Self.capture(client)
            #expect(queryItems(try #require(try await SAMLPeerFixture.postToACS(client, genuine.fields).location))["code"] != nil)

            var captured = try await Self.capture(client)
            captured.xml = captured.replacing(Self.nameID, with: "$1mallory@example.org$3")
            try await Self.expectRefused(client, captured.fields, "tampered NameID", mentioning: "does not verify")

            captured = try await Self.capture(client)
            captured.xml = captured.xml.replacingOccurrences(of: "Alice Liddell", with: "Mallory")
            try await Self.expectRefused(client, captured.fields, "tampered attribute", mentioning: "does not verify")

            captured = try await Self.capture(client)
            captured.xml = captured.replacing(Self.signature, with: "")
            try await Self.expectRefused(client, captured.fields, "signatures removed", mentioning: "not signed")

            // Wrapping: the Response signature dropped, the genuine signed assertion hidden in
            // Extensions, an unsigned copy for mallory as the assertion used.
            captured = try await Self.capture(client)
            let unsignedResponse = Captured(xml: captured.xml.replacingOccurrences(
                of: try #require(captured.first(#"<(\w+:)?Signature[\s>][\s\S]*?</\1Signature>(?=<(\w+:)?Status)"#)), with: ""),
                relayState: captured.relayState)
            let signedAssertion = try #require(unsignedResponse.first(Self.assertion))
            var evil = Captured(xml: signedAssertion, relayState: "")
            evil.xml = evil.replacing(Self.signature, with: "")
            evil.xml = evil.replacing(Self.nameID, with: "$1mallory@example.org$3")
            evil.xml = evil.replacing(#"ID="([^"]+)""#, with: #"ID="$1-evil""#)
            var wrapped = unsignedResponse
            wrapped.xml = unsignedResponse.xml.replacingOccurrences(
                of: signedAssertion, with: "<Extensions xmlns=\"urn:oasis:names:tc:SAML:2.0:protocol\">\(signedAssertion)</Extensions>\(evil.xml)")
            try await Self.expectRefused(client, wrapped.fields, "wrapped assertion", mentioning: "not signed")

            captured = try await Self.capture(client)
            var doubled = captured
            doubled.xml = captured.xml.replacingOccurrences(of: try #require(captured.first(Self.assertion)),
                                                            with: try #require(captured.first(Self.assertion)) + evil.xml)
            try await Self.expectRefused(client, doubled.fields, "second assertion")

            captured = try await Self.capture(client)
            captured.xml = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" + captured.xml.replacingOccurrences(of: "<?xml version=\"1.0\"?>", with: "")
            try await Self.expectRefused(client, captured.fields, "DOCTYPE", mentioning: "DOCTYPE")

            // Comment injection: the text the IdP signed is unchanged and c14n drops comments, so both signatures
            // still verify; a parser that read only the first text node would see "alice@example". Refused.
            captured = try await Self.capture(client)
            captured.xml = captured.replacing(Self.nameID, with: "$1alice@example<!---->.org$3")
            try await Self.expectRefused(client, captured.fields, "comment in NameID", mentioning: "comments or processing instructions")

            captured = try await Self.capture(client)
            captured.xml = captured.xml.replacingOccurrences(of: "Destination=\"http://127.0.0.1:8080/saml/acs\"",
                                                             with: "Destination=\"http://127.0.0.1:8080/elsewhere\"")
            try await Self.expectRefused(client, captured.fields, "wrong Destination", mentioning: "Destination")

            captured = try await Self.capture(client)
            captured.xml = captured.replacing(#"(<(\w+:)?Audience>)[^<]*(</)"#, with: "$1https://other-sp.example.org$3")
            try await Self.expectRefused(client, captured.fields, "wrong Audience")

            // The assertion's own signature removed under the (now broken) Response signature.
            captured = try await Self.capture(client)
            let inner = try #require(captured.first(Self.assertion))
            captured.xml = captured.xml.replacingOccurrences(of: inner, with: Captured(xml: inner, relayState: "").replacing(Self.signature, with: ""))
            try await Self.expectRefused(client, captured.fields, "unsigned assertion in a signed Response")

            // 5 MB: over the body limit, answered 413 before any XML work.
            captured = try await Self.capture(client)
            let huge = try await SAMLPeerFixture.postToACS(client, [
                ("SAMLResponse", Data((captured.xml + String(repeating: " ", count: 5 << 20)).utf8).base64EncodedString()),
                ("RelayState", captured.relayState)])
            #expect(huge.status == .contentTooLarge)

            let foreign = try await SAMLPeerFixture.responseFields(client, authService: "p2-wrongcert")
            try await Self.expectRefused(client, foreign, "wrong certificate", mentioning: "does not verify")
        }
    }

    @Test("replayed response, response for another sign-in, expired, unknown RelayState, garbage",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func replayAndTiming() async throws {
        let clock = ManualClock(Date())
        let broker = try #require(try await Self.broker(clock: clock))
        try await broker.withClient { client in
            // The IdP stamps its answers with the real time; the broker's manual clock follows it
            // up before each one is posted (a loaded run can take longer than the clock skew).
            func capture() async throws -> Captured {
                let captured = try await Self.capture(client)
                clock.set(max(clock.now(), Date()))
                return captured
            }
            let genuine = try await capture()
            #expect(queryItems(try #require(try await SAMLPeerFixture.postToACS(client, genuine.fields).location))["code"] != nil)
            try await Self.expectRefused(client, genuine.fields, "replayed response")

            // A genuine response, presented with the RelayState of a different pending sign-in.
            let first = try await capture()
            let second = try await capture()
            try await Self.expectRefused(client, Captured(xml: first.xml, relayState: second.relayState).fields,
                                         "response to another request", mentioning: "different sign-in request")
            // The first one's own pending sign-in still works with it (nothing was lost).
            #expect(queryItems(try #require(try await SAMLPeerFixture.postToACS(client, first.fields).location))["code"] != nil)

            let late = try await capture()
            clock.advance(3600)
            try await Self.expectRefused(client, late.fields, "expired response")
            clock.advance(-3600)

            try await Self.expectRefused(client, [("SAMLResponse", genuine.fields[0].1), ("RelayState", "unknown-relay-state")], "unknown RelayState")
            let pending = try await capture()
            try await Self.expectRefused(client, [("SAMLResponse", "%%%not-base64"), ("RelayState", pending.relayState)], "garbage")
            try await Self.expectRefused(client, [("RelayState", try await capture().relayState)], "no SAMLResponse")
        }
    }

    @Test("the session outlives the assertion's 5-minute acceptance window; logout sends a LogoutRequest to the IdP's logoutUri",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func sessionEnd() async throws {
        let clock = ManualClock(Date())
        let broker = try #require(try await Self.broker(clock: clock))
        try await broker.withClient { client in
            let (tokens, _, sso) = try await SAMLPeerFixture.signInWithSSO(client, authService: "p2")
            let access = try #require(tokens["access_token"] as? String)
            let idToken = try #require(tokens["id_token"] as? String)
            #expect(try await Flows.validate(client, access).status == .ok)
            // Conditions / SubjectConfirmation NotOnOrAfter only bound acceptance at the ACS
            // (docs/connectors/saml.md, "Sessions").
            clock.advance(2 * 3600)
            #expect(try await Flows.validate(client, access).status == .ok)
            let logout = try await client.get("/oauth/logout?" + formEncode([("id_token_hint", idToken)]),
                                              headers: [.cookie: "idc_sso=\(try #require(sso))"])
            #expect(logout.location?.hasPrefix("http://127.0.0.1:8490/slo?SAMLRequest=") == true, "\(logout.location ?? "")")
            #expect(try await Flows.validate(client, access).status == .unauthorized)
        }
    }
}
