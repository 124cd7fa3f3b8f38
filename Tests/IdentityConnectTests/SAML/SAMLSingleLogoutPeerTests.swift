import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// Single logout with real IdPs (docs/connectors/saml.md, "Single logout"): a logout started at
/// either side ends the session on both. One ``UpstreamBrowser`` plays the user's browser at the
/// IdP for the sign-in and the logout; the broker's own pages go through the test client.
@Suite("SAML single logout against real IdPs")
struct SAMLSingleLogoutPeerTests {
    static let p2 = "http://127.0.0.1:8490"
    static let brokerSLO = "http://127.0.0.1:8080/saml/slo"

    static var signing: [String] { SAMLPeerTests.spKeyOptions + ["signRequests: true"] }

    static func broker(clock: ManualClock = ManualClock(Date())) async throws -> TestBroker {
        let ssp = try #require(ProcessInfo.processInfo.environment["IDCONNECT_SAML_SSP_METADATA"])
        return try await SAMLPeerFixture.broker([
            SAMLMetadataPeerTests.service("p2", type: "saml-redirect", options: ["idpMetadataUrl: \(p2)/metadata"] + signing),
            SAMLMetadataPeerTests.service("p2-post-slo", options: ["idpMetadataUrl: \(p2)/post-slo/metadata"] + signing),
            SAMLMetadataPeerTests.service("ssp", type: "saml-redirect", options: ["idpMetadataUrl: \(ssp)"] + signing),
        ], clock: clock)
    }

    /// Starts the broker's logout for the sign-in: the broker's answer (to the IdP).
    static func startLogout(_ client: any TestClientProtocol, _ tokens: [String: Any], sso: String?) async throws -> TestResponse {
        try await client.get("/oauth/logout?" + formEncode([
            ("id_token_hint", try #require(tokens["id_token"] as? String)), ("post_logout_redirect_uri", TestBroker.redirect),
            ("state", "bye")]), headers: [.cookie: "idc_sso=\(try #require(sso))"])
    }

    /// The browser at the IdP, from `page` on, until the IdP sends it to the broker's SLO endpoint:
    /// the broker's answer to that message.
    static func toBroker(_ client: any TestClientProtocol, _ browser: UpstreamBrowser, _ page: UpstreamBrowser.Page) async throws -> TestResponse {
        var page = page
        for _ in 0..<8 {
            if let location = page.location, (300..<400).contains(page.status) {
                if location.hasPrefix(brokerSLO) { return try await client.get(String(location.dropFirst("http://127.0.0.1:8080".count))) }
                page = try await browser.request(location)
                continue
            }
            let form = try #require(HTMLForm.find(in: page.body, baseURL: page.url), "\(page.url): \(page.body.prefix(500))")
            let fields = form.inputs.filter { $0.type == "hidden" }.map { ($0.name, $0.value) }
            if form.action.hasPrefix(brokerSLO) { return try await client.postForm("/saml/slo", fields) }
            page = try await browser.request(form.action, method: .POST, form: fields)
        }
        throw UpstreamBrowser.BrowserStuck(description: "the IdP never came back: \(browser.visited)")
    }

    /// The broker's answer taken to the IdP by the browser (a redirect, or its auto-posting form).
    static func toIdP(_ browser: UpstreamBrowser, _ answer: TestResponse) async throws -> UpstreamBrowser.Page {
        if let location = answer.location { return try await browser.request(location) }
        // The broker's page escapes more than HTMLForm decodes: its fields as the auto-post sends them.
        let form = try #require(HTMLForm.find(in: answer.text, baseURL: "http://127.0.0.1:8080/"), "\(answer.text.prefix(500))")
        return try await browser.request(form.action, method: .POST, form: SAMLBindingSecurityTests.formFields(answer.text))
    }

    /// The broker's manual clock moved up to the real time: the IdPs stamp their messages with
    /// the real time, and on a loaded machine a test can run for longer than the clock skew the
    /// broker allows after the clock was made.
    static func catchUp(_ broker: TestBroker) {
        broker.clock.set(max(broker.clock.now(), Date()))
    }

    static func idpSession(_ browser: UpstreamBrowser) async throws -> String {
        try await browser.request("\(p2)/session").body
    }

    @Test("SP-initiated at pysaml2: HTTP-Redirect, and HTTP-POST where the IdP offers only that; both sessions end, the browser returns to the app",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func spInitiatedPysaml2() async throws {
        let broker = try await Self.broker()
        try await broker.withClient { client in
            for service in ["p2", "p2-post-slo"] {
                let browser = UpstreamBrowser()
                Self.catchUp(broker)
                let (tokens, _, sso) = try await SAMLPeerFixture.signInWithSSO(client, authService: service, browser: browser)
                #expect(try await Self.idpSession(browser) == "signed in as alice", "\(service)")
                let logout = try await Self.startLogout(client, tokens, sso: sso)
                if service == "p2" {
                    #expect(logout.location?.hasPrefix("\(Self.p2)/slo/redirect?SAMLRequest=") == true, "\(logout.location ?? logout.text)")
                } else {
                    #expect(logout.status == .ok, "\(logout.text.prefix(500))")
                    #expect(HTMLForm.find(in: logout.text, baseURL: "http://127.0.0.1:8080/")?.action == "\(Self.p2)/post-slo/slo/post")
                }
                #expect(try await Flows.validate(client, try #require(tokens["access_token"] as? String)).status == .unauthorized)
                let atIdP = try await Self.toIdP(browser, logout)
                Self.catchUp(broker)
                let back = try await Self.toBroker(client, browser, atIdP)
                #expect(back.location == TestBroker.redirect + "?state=bye", "\(service): \(back.status) \(back.text.prefix(400))")
                #expect(try await Self.idpSession(browser) == "no session", "\(service)")
            }
        }
    }

    @Test("IdP-initiated at pysaml2 (signed HTTP-Redirect and HTTP-POST requests): the broker ends the user's sessions on every instance and answers Success",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func idpInitiatedPysaml2() async throws {
        let broker = try await Self.broker()
        let sibling = try await broker.sibling(registry: SAMLPeerFixture.registry)
        try await broker.withClient { client in
            for binding in ["redirect", "post"] {
                let browser = UpstreamBrowser()
                Self.catchUp(broker)
                let (tokens, _, _) = try await SAMLPeerFixture.signInWithSSO(client, authService: "p2", browser: browser)
                let access = try #require(tokens["access_token"] as? String)
                let initiated = try await browser.request("\(Self.p2)/slo/initiate?binding=\(binding)")
                Self.catchUp(broker)
                let answer = try await Self.toBroker(client, browser, initiated)
                #expect(answer.location?.hasPrefix("\(Self.p2)/slo/redirect?SAMLResponse=") == true, "\(binding): \(answer.text.prefix(500))")
                let done = try await Self.toIdP(browser, answer)
                #expect(done.body.contains("logged out: Success"), "\(binding): \(done.body.prefix(300))")
                #expect(try await Flows.validate(client, access).status == .unauthorized, "\(binding)")
                try await sibling.withClient { (other: any TestClientProtocol) async throws in
                    #expect(try await Flows.validate(other, access).status == .unauthorized, "\(binding), other instance")
                }
            }
        }
    }

    @Test("SimpleSAMLphp, signed logout messages both ways: SP-initiated ends the IdP session (the next sign-in asks for the password); IdP-initiated ends the broker's",
          .enabled(if: SAMLPeerTests.peersConfigured, Comment(rawValue: SAMLPeerTests.skip)))
    func simpleSAMLphp() async throws {
        let broker = try await Self.broker()
        try await broker.withClient { client in
            let browser = UpstreamBrowser()
            Self.catchUp(broker)
            let (tokens, _, sso) = try await SAMLPeerFixture.signInWithSSO(client, authService: "ssp", browser: browser)
            // SSO at the IdP: a second sign-in in this browser needs no password.
            let before = browser.visited.count
            Self.catchUp(broker)
            _ = try await SAMLPeerFixture.signInWithSSO(client, authService: "ssp", browser: browser)
            #expect(!browser.visited[before...].contains { $0.contains("loginuserpass") }, "\(browser.visited[before...])")

            let logout = try await Self.startLogout(client, tokens, sso: sso)
            #expect(logout.location?.contains("/saml2/idp/SingleLogoutService.php?SAMLRequest=") == true, "\(logout.location ?? logout.text)")
            let atIdP = try await Self.toIdP(browser, logout)
            Self.catchUp(broker)
            let back = try await Self.toBroker(client, browser, atIdP)
            #expect(back.location == TestBroker.redirect + "?state=bye", "\(back.status) \(back.text.prefix(400))")
            let after = browser.visited.count
            Self.catchUp(broker)
            let (again, _, _) = try await SAMLPeerFixture.signInWithSSO(client, authService: "ssp", browser: browser)
            #expect(browser.visited[after...].contains { $0.contains("loginuserpass") }, "the IdP session ended: \(browser.visited[after...])")

            // IdP-initiated: the IdP logs the browser out of every SP, the broker among them, then goes to ReturnTo.
            let returnTo = "http://127.0.0.1:8480/module.php/core/loggedout"
            let start = try await browser.request("http://127.0.0.1:8480/saml2/idp/SingleLogoutService.php?ReturnTo="
                                                  + (returnTo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            Self.catchUp(broker)
            let answer = try await Self.toBroker(client, browser, start)
            #expect(answer.location?.contains("/saml2/idp/SingleLogoutService.php?SAMLResponse=") == true, "\(answer.text.prefix(500))")
            var page = try await Self.toIdP(browser, answer)
            while let location = page.location, !location.hasPrefix(returnTo) { page = try await browser.request(location) }
            #expect(page.location?.hasPrefix(returnTo) == true, "\(browser.visited.suffix(4))")
            #expect(try await Flows.validate(client, try #require(again["access_token"] as? String)).status == .unauthorized)
        }
    }
}
