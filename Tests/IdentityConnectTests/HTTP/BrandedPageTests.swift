import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// The operator's brand on the hosted pages (docs/configuration.md, "Branding"): product name and
/// logo above the heading, favicon, colours, the login page's "Forgot password?" and "Help", the
/// app's name where the person decides, and a Content-Security-Policy that loads the logo.
@Suite("Pages: the operator's brand")
struct BrandedPageTests {
    static func files() -> [String: String] {
        var files = TestBroker.defaultConfig()
        let branding = """
            name: Expense Reports
            branding: { productName: "Acme", logoUri: "https://cdn.acme.example/logo.svg", faviconUri: "https://icons.acme.example/f.png",
                        forgotPasswordUri: "https://acme.example/reset", helpUri: "https://acme.example/help",
                        colors: { primary: "#7a1f1f", background: "#eeeeee" } }

        """
        files["environments/test.yaml"] = files["environments/test.yaml"]?
            .replacingOccurrences(of: "    defaultAuthService: users\n", with: "    defaultAuthService: users\n" + branding)
        return files
    }

    @Test("the login page: brand header, favicon, colours, the app's name with the service's, forgot-password and help links, the logo allowed")
    func loginPage() async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            let page = try await Flows.loginPage(client)
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.contains("<title>Sign in to Expense Reports with Test users · Acme</title>"), "\(html)")
            #expect(html.contains("<h1>Sign in to Expense Reports with Test users</h1>"))
            #expect(html.contains(#"<img src="https://cdn.acme.example/logo.svg" alt="Acme" id="brand-logo"><span id="brand-name">Acme</span>"#))
            #expect(html.contains(#"<link rel="icon" href="https://icons.acme.example/f.png">"#))
            #expect(html.contains("<style>:root{--primary:#7a1f1f;--page:#eeeeee}</style>"))
            #expect(html.contains(#"<a id="forgot-password" href="https://acme.example/reset">Forgot password?</a><a id="help" href="https://acme.example/help">Help</a>"#))
            let policy = page.headers[.contentSecurityPolicy] ?? ""
            #expect(policy.contains("img-src 'self' data: https://cdn.acme.example https://icons.acme.example;"), "\(policy)")
            #expect(!policy.contains("script-src"))
        }
    }

    @Test("without branding: no header, no favicon link, the built-in colours; the sign-out question names the app and offers Cancel")
    func plainPages() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let page = try await Flows.loginPage(client)
            #expect(page.text.contains("<h1>Test users</h1>") && !page.text.contains(#"id="brand""#))
            #expect(!page.text.contains(#"rel="icon""#) && !page.text.contains("forgot-password"))
            let confirm = try await client.get("/oauth/logout?" + formEncode([("client_id", TestBroker.appKey)]))
            // Cancel leads to the app's web origin (TestBroker.redirect is https://app.example.com/cb).
            #expect(confirm.text.contains(#"<a class="button secondary" id="cancel" href="https://app.example.com/">"#), "\(confirm.text)")
        }
        let branded = try await TestBroker.make(files: Self.files())
        try await branded.withClient { client in
            let confirm = try await client.get("/oauth/logout?" + formEncode([("client_id", TestBroker.appKey)]))
            #expect(confirm.text.contains("<h1>Sign out of Expense Reports?</h1>"))
        }
    }

    @Test("GET /favicon.ico: the broker's own icon, cacheable, so no page logs a 404 for it")
    func favicon() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let icon = try await client.get("/favicon.ico")
            #expect(icon.status == .ok && icon.headers[.contentType] == "image/png")
            #expect(icon.headers[.cacheControl]?.contains("max-age=86400") == true)
            #expect(Array(icon.body.readableBytesView.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
    }
}
