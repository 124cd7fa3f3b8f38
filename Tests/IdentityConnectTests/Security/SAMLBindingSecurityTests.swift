import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// docs/security.md, rule 4, at the SAML ACS: the IdP's cross-site POST arrives without the browser
/// binding cookie (SameSite=Lax), so the ACS bounces it through a same-site POST; only the browser
/// that started the sign-in finishes it, and only it gets the SSO cookie.
@Suite("Security: SAML ACS and the browser that started the sign-in")
struct SAMLBindingSecurityTests {
    /// The hidden fields of the auto-posting form on an HTML page.
    static func formFields(_ html: String) -> [(String, String)] {
        let regex = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
            guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html) else { return nil }
            return (String(html[name]), String(html[value]).replacingOccurrences(of: "&#x2F;", with: "/")
                .replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&amp;", with: "&")
                .replacingOccurrences(of: "&#x2B;", with: "+"))
        }
    }

    @Test("the cross-site POST is bounced with its fields; the browser that started finishes; another browser is refused",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func bounce() async throws {
        let broker = try #require(try await SAMLHostileTests.broker())
        try await broker.withClient { client in
            let fields = try await SAMLPeerFixture.responseFields(client, authService: "p2")
            // As the IdP's page posts it: cross-site, without the broker's cookie.
            let crossSite = try await client.postForm("/saml/acs", fields)
            #expect(crossSite.status == .ok)
            #expect(crossSite.text.contains(#"action="http://127.0.0.1:8080/saml/acs""#))
            let bounced = Self.formFields(crossSite.text)
            #expect(bounced.contains { $0.0 == "idc_bounce" })
            #expect(bounced.first { $0.0 == "RelayState" }?.1 == fields.first { $0.0 == "RelayState" }?.1)
            // The bounce from another browser (an attacker's Response posted into a victim's browser).
            let elsewhere = try await client.postForm("/saml/acs", bounced, headers: [.cookie: "idc_csrf=\(Secrets.randomToken())"])
            #expect(elsewhere.status == .badRequest)
            #expect(elsewhere.location == nil && elsewhere.cookies["idc_sso"] == nil)
            // Without any cookie the bounce is not repeated: refused.
            let again = try await client.postForm("/saml/acs", bounced)
            #expect(again.status == .badRequest && again.location == nil)
        }
    }

    @Test("the bounced POST from the browser that started the sign-in ends with a code and the SSO cookie",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func startingBrowserFinishes() async throws {
        let broker = try #require(try await SAMLHostileTests.broker())
        try await broker.withClient { client in
            let fields = try await SAMLPeerFixture.responseFields(client, authService: "p2")
            let bounced = Self.formFields(try await client.postForm("/saml/acs", fields).text)
            let answer = try await client.postForm("/saml/acs", bounced, headers: [.cookie: SAMLPeerFixture.browserCookie])
            #expect(answer.status == .found)
            #expect(queryItems(try #require(answer.location))["code"] != nil)
            #expect(answer.cookies["idc_sso"] != nil)
        }
    }
}
