import Foundation
import Hummingbird
import IdentityCore
import Mustache

/// Renders the hosted pages. All values are HTML-escaped by Mustache.
struct Pages: Sendable {
    private let login: MustacheTemplate
    private let error: MustacheTemplate
    private let autoPost: MustacheTemplate
    private let signedOut: MustacheTemplate
    private let accounts: MustacheTemplate

    init() {
        signedOut = try! MustacheTemplate(string: PageTemplates.signedOut)
        autoPost = try! MustacheTemplate(string: PageTemplates.autoPost)
        // The templates are fixed strings checked by the tests; failing here is a programming error.
        login = try! MustacheTemplate(string: PageTemplates.login)
        error = try! MustacheTemplate(string: PageTemplates.error)
        accounts = try! MustacheTemplate(string: PageTemplates.accounts)
    }

    /// One remembered account on the account chooser.
    struct Account {
        var label: String
        var detail: String
        var link: String
    }

    /// The `prompt=select_account` page.
    func accountChooser(heading: String, accounts list: [Account], anotherAccount: String, stylesheet: URL?) -> Response {
        let values: [String: Any] = [
            "title": heading, "heading": heading, "anotherAccount": anotherAccount,
            "accounts": list.map { ["label": $0.label, "detail": $0.detail, "link": $0.link] },
            "stylesheet": stylesheet?.absoluteString ?? false,
        ]
        let origin = stylesheet.flatMap(Self.origin(of:)).map { [$0] } ?? []
        return Responses.html(accounts.render(values), styleSources: origin)
    }

    struct LoginForm {
        var heading: String
        var action: String
        var csrfToken: String
        var username: String?
        var error: String?
        var stylesheet: URL?
    }

    func loginPage(_ form: LoginForm) -> Response {
        let values: [String: Any] = [
            "title": form.heading, "heading": form.heading, "action": form.action, "csrfToken": form.csrfToken,
            "username": form.username ?? "", "error": form.error ?? false,
            "stylesheet": form.stylesheet?.absoluteString ?? false,
        ]
        let origin = form.stylesheet.flatMap(Self.origin(of:)).map { [$0] } ?? []
        return Responses.html(login.render(values), styleSources: origin)
    }

    /// Sends the browser to an identity source: a redirect, or an auto-submitting form (SAML HTTP-POST).
    func upstreamAction(_ action: RedirectAction) -> Response {
        switch action {
        case .redirect(let location):
            return Responses.redirect(location)
        case .autoPost(let url, let fields):
            let nonce = Secrets.randomToken(bytes: 16)
            let values: [String: Any] = [
                "title": "Signing in", "action": url, "nonce": nonce,
                "fields": fields.map { ["name": $0.name, "value": $0.value] },
            ]
            var response = Responses.html(autoPost.render(values))
            response.headers[.contentSecurityPolicy] =
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; frame-ancestors 'none'; base-uri 'none'"
            return response
        }
    }

    func signedOutPage() -> Response {
        Responses.html(signedOut.render(["title": "Signed out"]))
    }

    func errorPage(_ oauthError: OAuthError) -> Response {
        let values: [String: Any] = [
            "title": "Sign-in problem", "heading": "Sign-in problem",
            "message": oauthError.errorDescription, "code": oauthError.code.rawValue,
        ]
        let status = oauthError.status >= 500 ? oauthError.status : 400
        return Responses.html(error.render(values), status: .init(code: status))
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
