import Foundation
import Hummingbird
@testable import IdentityApp
import IdentityCore
@testable import OAuthEngine
import PageLanguages
import StoreContracts

/// Every hosted page, rendered from sample models by `Pages` itself (no socket): what the
/// language walk renders in each language. Names and values are ones no catalog holds, so a
/// test can tell them from words.
enum PageSamples {
    static let look = PageLook()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// (page name, answer) for every page and its main variants.
    static func all(_ pages: Pages) async throws -> [(String, String)] {
        var rendered: [(String, Response)] = []
        rendered.append(("login", pages.loginPage(LoginFormModel(heading: "Sign in to \("Zebra Books") with \("Qorp ID")",
            action: "/a", csrfToken: "t", username: "alice", error: PageText(message: "The username or password is incorrect."),
            look: look, qrStart: "/qr"))))
        rendered.append(("login with numbers in its error", pages.loginPage(LoginFormModel(heading: "Sign in", action: "/a",
            csrfToken: "t", username: "alice",
            error: PageText(message: "Too many failed sign-ins for this username. Wait 30 seconds, then try again."), look: look))))
        rendered.append(("account chooser", pages.accountChooser(AccountChooserModel(heading: "Choose an account",
            accounts: [.init(label: "Alice Zed", detail: "alice", link: "/x")], anotherAccount: "/y", look: look))))
        rendered.append(("upstream auto-post", pages.upstreamAction(.autoPost(url: "https://idp.example/sso", fields: [.init("SAMLRequest", "x")]))))
        rendered.append(("logout question", pages.logoutConfirmation(action: "/l", fields: [], csrfToken: "t", clientName: "Zebra Books",
                                                                      cancel: "https://app.example/")))
        rendered.append(("logout question, no app", pages.logoutConfirmation(action: "/l", fields: [], csrfToken: "t", clientName: nil, cancel: nil)))
        rendered.append(("signed out", pages.signedOutPage()))
        rendered.append(("error, known words", pages.errorPage(.invalidRequest("This sign-in page has expired. Start again from the app."),
                                                               back: "https://app.example/")))
        rendered.append(("error, unknown words", pages.errorPage(.invalidGrant("zz-internal detail 42"), topic: .signOut)))
        rendered.append(("page not found", pages.errorPage(OAuthError(.invalidRequest, "There is no page at this address.", status: 404), topic: .notFound)))
        rendered.append(contentsOf: secondSteps(pages))
        rendered.append(("consent", pages.consent(ConsentPageModel(appName: "Zebra Books", serviceName: "Qorp ID",
            logo: nil, homepage: URL(string: "https://zebra.example"), policy: URL(string: "https://zebra.example/p"),
            termsOfService: URL(string: "https://zebra.example/t"), account: "alice",
            scopes: [.init(name: "openid", description: ScopeWords.describe("openid", overrides: [:]), required: true),
                     .init(name: "email", description: ScopeWords.describe("email", overrides: [:]), required: false),
                     .init(name: "zorp", description: ScopeWords.describe("zorp", overrides: [:]), required: false)],
            resources: ["https://api.zebra.example"], action: "/c", csrfToken: "t", look: look))))
        rendered.append(contentsOf: devicePages(pages))
        rendered.append(contentsOf: qrPages(pages))
        rendered.append(contentsOf: accountPages(pages))
        rendered.append(("form_post answer", pages.answer(ClientAnswer(redirectURI: "https://app.example/cb", mode: .formPost, [("code", "c")]))))
        var result: [(String, String)] = []
        for (name, response) in rendered { result.append((name, try await body(response))) }
        return result
    }

    static func secondSteps(_ pages: Pages) -> [(String, Response)] {
        let base = SecondStepPageModel(kind: .verify, heading: PageText(verbatim: "Qorp ID"), account: "alice", restartAction: "/r",
            action: "/m", csrfToken: "t", message: "Enter the 6-digit code from your authenticator app, or one of your recovery codes.",
            error: PageText(message: "This code was used already. Wait for the next code in your authenticator app."), offersCode: true,
            inputMode: "numeric", totpSetup: nil, passkeyOptions: "{}", passkeyAction: "/p", passkeyCreates: false, recoveryCodes: [],
            continueAction: nil, look: look)
        var enrol = base
        enrol.kind = .enrol
        enrol.message = "This app requires a second factor. Set one up to continue."
        enrol.error = nil
        enrol.restartAction = nil
        enrol.totpSetup = .init(uri: "otpauth://totp/x?secret=ABC", secret: "ABCD EFGH")
        enrol.passkeyCreates = true
        var codes = base
        codes.kind = .recoveryCodes
        codes.offersCode = false
        codes.message = PageText("Your second factor is set up.").then("Your recovery codes were shown already.")
        codes.recoveryCodes = ["1111-2222"]
        codes.continueAction = "/continue"
        codes.passkeyOptions = nil
        var challenge = base
        challenge.kind = .challenge
        challenge.message = PageText(verbatim: "Zorp question from the identity source?")
        challenge.inputMode = "text"
        challenge.passkeyOptions = nil
        return [("second step", pages.secondStep(base)), ("second step: enrol", pages.secondStep(enrol)),
                ("second step: recovery codes", pages.secondStep(codes)), ("second step: a source's question", pages.secondStep(challenge))]
    }

    static func devicePages(_ pages: Pages) -> [(String, Response)] {
        let form = DeviceCodeForm(heading: "Sign in on a device", action: "/d", csrfToken: "t", userCode: "BCDF",
            error: "That is not a code from a device: it has 8 letters, like BCDF-GHJK. Check the code on your device and type it again.")
        let confirm = DeviceConfirmation(appName: "Zebra Books", serviceName: "Qorp ID", userCode: "BCDF-GHJK",
            access: Scopes.inWords("openid profile email zapi", staysSignedIn: true), action: "/c", csrfToken: "t", look: look)
        let done = DeviceFinished(heading: "Device signed in",
            message: "You are signed in to \("Zebra Books") on your device as \("alice"). You can close this page and return to the device.",
            signedIn: true, look: look, again: nil)
        let refused = DeviceFinished(heading: "Code not valid", message: "This code has expired or was used already. Start again on your device.",
                                     signedIn: false, look: look, again: "/d")
        return [("device code", pages.deviceCodeForm(form, status: .badRequest)), ("device confirm", pages.deviceConfirmation(confirm)),
                ("device signed in", pages.deviceFinished(done, status: .ok)), ("device refused", pages.deviceFinished(refused, status: .badRequest))]
    }

    static func qrPages(_ pages: Pages) -> [(String, Response)] {
        let display = QRLoginDisplay(code: "c", payload: "https://broker.example/oauth/qr?code=c", expiresAt: now, ttl: 120,
                                     heading: "Sign in", look: look, statusURL: "/s", finishURL: "/f", restartURL: "/r", passwordURL: "/p")
        return [("qr", pages.qrLogin(display)),
                ("qr refused", pages.qrRefused(back: ClientAnswer(redirectURI: "https://app.example/cb", mode: .query, [("error", "access_denied")]))),
                ("qr refused, form_post", pages.qrRefused(back: ClientAnswer(redirectURI: "https://app.example/cb", mode: .formPost, [("error", "access_denied")]))),
                ("qr expired", pages.qrExpired(restart: "/r")), ("qr scan hint", pages.qrScanHint())]
    }

    static func accountPages(_ pages: Pages) -> [(String, Response)] {
        let factors = AccountPageModel.SecondFactors(mode: "optional", authenticatorSince: now, authenticatorLastUsed: now,
            offersAuthenticator: true, passkeys: [.init(id: "p1", name: "Zorp key", added: now, lastUsed: now)], offersPasskeys: true,
            recoveryCodesLeft: 8, hasFactor: true, changesNeedSignIn: true)
        var model = AccountPageModel(heading: PageText(verbatim: "Qorp ID"), clientId: "kid_z", csrfToken: "t",
            notice: PageText("Authenticator app set up: sign-ins now ask for its code.").then("Keep the recovery codes below somewhere safe."),
            error: "That device sign-in has already ended.", recoveryCodes: ["1111-2222"],
            user: .init(id: "alice", name: "Alice Zed", email: "alice@zebra.example", groups: ["zadmins"]),
            browsers: [.init(id: "s1", browser: "Firefox 128", os: "Linux", address: "192.0.2.1", signedIn: now, lastUsed: now, isCurrent: true)],
            apps: [.init(clientId: "kid_z", name: "Zebra Books", signedIn: now, lastUsed: now, offlineAccess: true)],
            devices: [.init(clientId: "dev1", softwareId: "zapp", deviceType: "ios", registered: now, lastUsed: now)],
            factors: factors, look: look)
        model.sharedSignIns = [.init(id: "s2", apps: ["Zebra Books", "Zebra Notes"], signedIn: now, lastUsed: now)]
        model.consents = [.init(clientId: "kid_z", name: "Zebra Books", allowed: [ScopeWords.describe("email", overrides: [:])],
                                grantedAt: now, updatedAt: now.addingTimeInterval(60))]
        var empty = model
        empty.browsers = []
        empty.apps = []
        empty.devices = []
        empty.factors?.authenticatorSince = nil
        empty.factors?.passkeys = []
        let setup = AuthenticatorSetupModel(heading: "Your account", clientId: "kid_z", csrfToken: "t", uri: "otpauth://totp/x?secret=ABC",
                                            secret: "ABCD", sealedSetup: "s", error: "Enter the code.", look: look)
        let passkey = PasskeySetupModel(heading: "Your account", clientId: "kid_z", csrfToken: "t", options: "{}", look: look)
        return [("account", pages.account(model, base: "https://broker.example")), ("account, empty", pages.account(empty, base: "https://broker.example")),
                ("account: authenticator", pages.accountAuthenticator(setup, base: "https://broker.example")),
                ("account: passkey", pages.accountPasskey(passkey, base: "https://broker.example")),
                ("account: signed out", pages.accountSignedOut(
                    message: "You signed out everywhere: sign-ins ended: \(3) (browsers, apps and devices). Each must sign in again; devices stay registered.",
                    signInAgain: "/a", look: look))]
    }

    /// The answer's body as text.
    static func body(_ response: Response) async throws -> String {
        let box = Collected()
        try await response.body.write(Collector(box: box))
        return String(buffer: box.buffer)
    }

    final class Collected: @unchecked Sendable { var buffer = ByteBuffer() }

    struct Collector: ResponseBodyWriter {
        let box: Collected
        mutating func write(_ buffer: ByteBuffer) async throws { box.buffer.writeImmutableBuffer(buffer) }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
