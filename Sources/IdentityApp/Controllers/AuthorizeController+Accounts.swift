import Foundation
import Hummingbird
import IdentityCore
import StoreContracts
import OAuthEngine

extension AuthorizeController {
    /// The app-to-web SSO cookie an app hands its browser (SPEC §3.8): one-time, read by `/oauth/auth`.
    static let webSSOCookie = "css"

    /// `prompt=select_account`: the accounts this browser is signed in with for the client's auth
    /// service, each a link back to `/oauth/auth` with `login_hint` naming it (which picks that
    /// SSO session), and "use another account" as the same request with `prompt=login`.
    func accountChooser(_ authorization: AuthorizationRequest, sessions: [LoginSession], parameters: OAuthParameters) -> Response {
        let kept = parameters.names.sorted().filter { $0 != "prompt" && $0 != "login_hint" }
            .compactMap { name in parameters[name].map { (name, Optional($0)) } }
        let base = "\(services.issuer)/oauth/auth"
        var seen: Set<String> = []
        let accounts = sessions.filter { seen.insert($0.userId).inserted }.map { session in
            Pages.Account(label: session.attributes["name"]?.stringValue ?? session.userId, detail: session.userId,
                          link: RedirectURL.build(base, kept + [("login_hint", session.userId)]))
        }
        var stylesheet: URL?
        if case .css(let url) = authorization.client.service.customizedLogin { stylesheet = url }
        return services.pages.accountChooser(heading: authorization.client.service.name ?? "Choose an account", accounts: accounts,
                                             anotherAccount: RedirectURL.build(base, kept + [("prompt", "login")]),
                                             stylesheet: stylesheet)
    }

    /// A presented `css` value is spent whatever happened: tell the browser to drop it.
    func clearWebSSOCookie(on response: inout Response) {
        response.setCookie(Cookie(name: Self.webSSOCookie, value: "", maxAge: 0, path: "/", secure: services.secureCookies,
                                  httpOnly: true, sameSite: .lax))
    }
}
