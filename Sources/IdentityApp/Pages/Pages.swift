import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine

/// Renders the hosted pages. All values are HTML-escaped by Mustache.
struct Pages: Sendable {
    private let login: MustacheTemplate
    private let error: MustacheTemplate
    private let autoPost: MustacheTemplate
    private let signedOut: MustacheTemplate
    private let accounts: MustacheTemplate
    private let logoutConfirm: MustacheTemplate
    let qrLoginTemplate: MustacheTemplate
    let qrRefusedTemplate: MustacheTemplate
    let qrExpiredTemplate: MustacheTemplate
    let qrScanHintTemplate: MustacheTemplate
    let secondStepTemplate: MustacheTemplate
    let accountTemplate: MustacheTemplate
    let accountAuthenticatorTemplate: MustacheTemplate
    let accountPasskeyTemplate: MustacheTemplate
    let accountSignedOutTemplate: MustacheTemplate
    let deviceCodeFormTemplate: MustacheTemplate
    let deviceConfirmationTemplate: MustacheTemplate
    let deviceFinishedTemplate: MustacheTemplate
    let consentTemplate: MustacheTemplate

    init() {
        signedOut = try! MustacheTemplate(string: PageTemplates.signedOut)
        autoPost = try! MustacheTemplate(string: PageTemplates.autoPost)
        // The templates are fixed strings checked by the tests; failing here is a programming error.
        login = try! MustacheTemplate(string: PageTemplates.login)
        error = try! MustacheTemplate(string: PageTemplates.error)
        accounts = try! MustacheTemplate(string: PageTemplates.accounts)
        logoutConfirm = try! MustacheTemplate(string: PageTemplates.logoutConfirm)
        qrLoginTemplate = try! MustacheTemplate(string: PageTemplates.qrLogin)
        qrRefusedTemplate = try! MustacheTemplate(string: PageTemplates.qrRefused)
        qrExpiredTemplate = try! MustacheTemplate(string: PageTemplates.qrExpired)
        qrScanHintTemplate = try! MustacheTemplate(string: PageTemplates.qrScanHint)
        secondStepTemplate = try! MustacheTemplate(string: PageTemplates.secondStep)
        accountTemplate = try! MustacheTemplate(string: PageTemplates.account)
        accountAuthenticatorTemplate = try! MustacheTemplate(string: PageTemplates.accountAuthenticator)
        accountPasskeyTemplate = try! MustacheTemplate(string: PageTemplates.accountPasskey)
        accountSignedOutTemplate = try! MustacheTemplate(string: PageTemplates.accountSignedOut)
        deviceCodeFormTemplate = try! MustacheTemplate(string: PageTemplates.deviceCodeForm)
        deviceConfirmationTemplate = try! MustacheTemplate(string: PageTemplates.deviceConfirmation)
        deviceFinishedTemplate = try! MustacheTemplate(string: PageTemplates.deviceFinished)
        consentTemplate = try! MustacheTemplate(string: PageTemplates.consent)
    }

    /// The `prompt=select_account` page.
    func accountChooser(_ chooser: AccountChooserModel) -> Response {
        let values = Self.with(chooser.look, [
            "title": chooser.heading, "heading": chooser.heading, "anotherAccount": chooser.anotherAccount,
            "accounts": chooser.accounts.map { ["label": $0.label, "detail": $0.detail, "link": $0.link] },
        ])
        return Self.html(accounts.render(values), look: chooser.look)
    }

    /// After a refused password the username stays filled in and focus goes to the password,
    /// which the error describes.
    func loginPage(_ form: LoginFormModel) -> Response {
        let retry = form.error != nil && !(form.username ?? "").isEmpty
        let values = Self.with(form.look, [
            "title": form.heading, "heading": form.heading, "action": form.action, "csrfToken": form.csrfToken,
            "username": form.username ?? "", "error": form.error ?? false, "qrStart": form.qrStart ?? false, "retry": retry,
        ])
        return Self.html(login.render(values), look: form.look)
    }

    /// Sends the browser to an identity source: a redirect, or an auto-submitting form (SAML HTTP-POST).
    /// `signingOut`: the form carries a logout message (SAML single logout), not a sign-in.
    func upstreamAction(_ action: RedirectAction, signingOut: Bool = false) -> Response {
        switch action {
        case .redirect(let location):
            return Responses.redirect(location)
        case .autoPost(let url, let fields):
            return autoPosting(to: url, fields: fields.map { ($0.name, $0.value) }, title: signingOut ? "Signing out" : "Signing in",
                               heading: signingOut ? "Continuing to sign out…" : "Continuing to sign-in…")
        }
    }

    /// A page that posts `fields` to `url` as soon as it loads (its one script is allowed by a
    /// nonce), with a button when scripts are off.
    func autoPosting(to url: String, fields: [(name: String, value: String)], title: String, heading: String) -> Response {
        let nonce = Secrets.randomToken(bytes: 16)
        let values: [String: Any] = [
            "title": title, "heading": heading, "action": url, "nonce": nonce,
            "fields": fields.map { ["name": $0.name, "value": $0.value] },
        ]
        return Responses.html(autoPost.render(values), scriptNonce: nonce)
    }

    /// Asks before signing out (docs/security.md, rule 7): a form that posts the logout request
    /// back with `confirm` and a CSRF token bound to this browser.
    func logoutConfirmation(action: String, fields: [(key: String, value: String)], csrfToken: String, clientName: String?,
                            cancel: String?) -> Response {
        let values: [String: Any] = [
            "title": "Sign out", "action": action, "csrfToken": csrfToken, "clientName": clientName ?? false, "cancel": cancel ?? false,
            "fields": fields.map { ["name": $0.key, "value": $0.value] },
        ]
        return Responses.html(logoutConfirm.render(values))
    }

    func signedOutPage() -> Response {
        Responses.html(signedOut.render(["title": "Signed out"]))
    }

    /// What an error page is about: its heading and the way forward it suggests.
    enum ErrorTopic {
        case signIn, signOut, notFound

        var heading: String {
            switch self {
            case .signIn: "Sign-in problem"
            case .signOut: "Sign-out problem"
            case .notFound: "Page not found"
            }
        }

        var advice: String {
            switch self {
            case .signIn: "Return to the app and start signing in again."
            case .signOut: "You may still be signed in. Return to the app and sign out there again, or close the browser."
            case .notFound: "Check the link, or return to the app you came from and start again there."
            }
        }
    }

    /// `back`: a link to the app (its registered web origin), when the request named one.
    func errorPage(_ oauthError: OAuthError, topic: ErrorTopic = .signIn, back: String? = nil) -> Response {
        let values: [String: Any] = [
            "title": topic.heading, "heading": topic.heading, "advice": topic.advice, "back": back ?? false,
            "message": oauthError.errorDescription, "code": oauthError.code.rawValue,
        ]
        let status = oauthError.status >= 500 || oauthError.status == 429 || oauthError.status == 404 ? oauthError.status : 400
        var response = Responses.html(error.render(values), status: .init(code: status))
        if let retryAfter = oauthError.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
