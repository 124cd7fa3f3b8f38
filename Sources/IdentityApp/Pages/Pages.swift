import Foundation
import Hummingbird
import IdentityCore
import Mustache
import OAuthEngine
import PageLanguages

/// Renders the hosted pages. All values are HTML-escaped by Mustache.
struct Pages: Sendable {
    private let templates = TranslatedTemplates()

    /// `page` in the language of `words`, filled with `values`.
    func render(_ page: PageTemplate, _ words: PageWords, _ values: [String: Any]) -> String {
        templates.template(page, words).render(values)
    }

    /// The `prompt=select_account` page.
    func accountChooser(_ chooser: AccountChooserModel) -> Response {
        let words = Self.words(chooser.look)
        let values = Self.with(chooser.look, words, [
            "title": words(chooser.heading), "heading": words(chooser.heading), "anotherAccount": chooser.anotherAccount,
            "accounts": chooser.accounts.map { ["label": $0.label, "detail": $0.detail, "link": $0.link] },
        ])
        return Self.html(render(.accounts, words, values), look: chooser.look)
    }

    /// After a refused password the username stays filled in and focus goes to the password,
    /// which the error describes.
    func loginPage(_ form: LoginFormModel) -> Response {
        let words = Self.words(form.look)
        let retry = form.error != nil && !(form.username ?? "").isEmpty
        let values = Self.with(form.look, words, [
            "title": words(form.heading), "heading": words(form.heading), "action": form.action, "csrfToken": form.csrfToken,
            "username": form.username ?? "", "error": form.error.map { words($0) } ?? false, "qrStart": form.qrStart ?? false,
            "retry": retry,
        ])
        return Self.html(render(.login, words, values), look: form.look)
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
    /// nonce), with a button when scripts are off. `title` and `heading` are catalog messages.
    func autoPosting(to url: String, fields: [(name: String, value: String)], title: String, heading: String) -> Response {
        let nonce = Secrets.randomToken(bytes: 16)
        let words = Self.words(nil)
        let values = Self.with(nil, words, [
            "title": words(title), "heading": words(heading), "action": url, "nonce": nonce,
            "fields": fields.map { ["name": $0.name, "value": $0.value] },
        ])
        return Responses.html(render(.autoPost, words, values), scriptNonce: nonce)
    }

    /// Asks before signing out (docs/security.md, rule 7): a form that posts the logout request
    /// back with `confirm` and a CSRF token bound to this browser.
    func logoutConfirmation(action: String, fields: [(key: String, value: String)], csrfToken: String, clientName: String?,
                            cancel: String?) -> Response {
        let words = Self.words(nil)
        let values = Self.with(nil, words, [
            "title": words("Sign out"), "action": action, "csrfToken": csrfToken, "clientName": clientName ?? false,
            "cancel": cancel ?? false, "fields": fields.map { ["name": $0.key, "value": $0.value] },
        ])
        return Responses.html(render(.logoutConfirm, words, values))
    }

    func signedOutPage() -> Response {
        let words = Self.words(nil)
        return Responses.html(render(.signedOut, words, Self.with(nil, words, ["title": words("Signed out")])))
    }

    /// What an error page is about: its heading and the way forward it suggests (catalog messages).
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

    /// `back`: a link to the app (its registered web origin), when the request named one. The
    /// message is the error's description in the page's language when the catalog has it; else
    /// what its code means in words, with the description (English, for the app's support) below.
    func errorPage(_ oauthError: OAuthError, topic: ErrorTopic = .signIn, back: String? = nil) -> Response {
        let words = Self.words(nil)
        let described = words.translation(ofMessage: oauthError.errorDescription)
        let values = Self.with(nil, words, [
            "title": words(topic.heading), "heading": words(topic.heading), "advice": words(topic.advice), "back": back ?? false,
            "message": described ?? words(ErrorWords.meaning(of: oauthError.code)),
            "details": described == nil && !oauthError.errorDescription.isEmpty ? oauthError.errorDescription : false,
            "code": oauthError.code.rawValue,
        ])
        let status = oauthError.status >= 500 || oauthError.status == 429 || oauthError.status == 404 ? oauthError.status : 400
        var response = Responses.html(render(.error, words, values), status: .init(code: status))
        if let retryAfter = oauthError.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
