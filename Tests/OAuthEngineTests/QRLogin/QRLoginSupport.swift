import EngineTesting
import Foundation
import IdentityConfig
import OAuthEngine

/// QR-code login (docs/qr-login.md) on a fixture whose `users` auth service offers it (codes
/// live 60 s): a browser showing a code, and an app's access token that may answer it.
struct QRShowing {
    static let chromeOnMac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

    static func fixture() async throws -> EngineFixture {
        let services = EngineFixture.defaultServices.map { service in
            var changed = service
            if service.id == "users" { changed.qrLogin = QRLoginSettings(ttl: 60) }
            return changed
        }
        return try await EngineFixture(environments: [EngineFixture.environment(services: services)])
    }

    var browser = BrowserContext(clientAddress: "198.51.100.7", userAgent: QRShowing.chromeOnMac)
    var display: QRLoginDisplay

    /// Opens the login page in a new browser and follows "Sign in with a QR code".
    init(_ fixture: EngineFixture) async throws {
        let form = try await fixture.loginForm(browser: &browser)
        let start = try EngineFixture.require(form.qrStart, "the QR link on the login page")
        display = try await fixture.engine.qrBrowser.start(pendingId: EngineFixture.lastPathComponent(start), browserBinding: browser.binding,
                                                           userAgent: browser.userAgent, acceptLanguage: "en",
                                                           clientAddress: browser.clientAddress)
    }

    var code: String { display.code }

    /// The app's access token (the password grant) with `scope`.
    static func appToken(_ fixture: EngineFixture, scope: String = "openid blitz_qr_auth", clientId: String = EngineFixture.appKey,
                         username: String = "bob", password: String = "bobpw") async throws -> String {
        try await fixture.passwordGrant(clientId: clientId, username: username, password: password, scope: scope).access_token
    }
}
