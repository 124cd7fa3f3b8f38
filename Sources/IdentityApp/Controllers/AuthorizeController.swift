import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import OAuthEngine

/// `GET /oauth/auth` (login page) and `POST /oauth/auth` (automated grant),
/// docs/protocol.md, "GET /oauth/auth" and "POST /oauth/auth". Parses the request and the browser's
/// cookies, asks the engine's `AuthorizeEndpoint`, and renders what it decided.
struct AuthorizeController {
    let services: AppServices

    /// The app-to-web SSO cookie an app hands its browser (docs/protocol.md, "App-to-web SSO"):
    /// one-time, read by `/oauth/auth`; `__Host-css` with an https issuer, like the broker's own
    /// cookies.
    static let webSSOCookieBase = "css"

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/auth", allow: [.get, .post])
        group.get("oauth/auth") { request, context in await authorize(request, context) }
        // OIDC Core 3.1.2.1: a browser may POST the authorization request as a form; the Kinvey
        // SDKs POST for the automated grant and ask for JSON.
        group.post("oauth/auth") { request, context in
            guard Self.isBrowserNavigation(request) else { return try await automatedGrant(request, context) }
            let parameters: OAuthParameters
            do {
                parameters = try await RequestParameters.body(request, context: context)
            } catch {
                return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The request could not be read."))
            }
            return await authorize(request, context, parameters: parameters)
        }
    }

    private var engine: BrokerEngine { services.engine }
    private var cookies: BrowserCookies { services.cookies }

    /// Whether a POST to `/oauth/auth` is a browser's form submission (an authorization request)
    /// rather than the Kinvey automated grant: never when the client asks for JSON at least as
    /// much as for HTML or sends JSON (the Kinvey SDKs); otherwise when it prefers HTML, or looks
    /// like a browser navigating (`Sec-Fetch-Mode: navigate`, a `Mozilla/` User-Agent — browsers
    /// and HtmlUnit may send `Accept: */*`). curl and libraries without those stay the grant.
    static func isBrowserNavigation(_ request: Request) -> Bool {
        let (html, json) = acceptRanks(request.headers[.accept])
        if json > 0 && json >= html { return false }
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true { return false }
        if html > 0 { return true }
        if request.headers[HTTPField.Name("Sec-Fetch-Mode")!]?.lowercased() == "navigate" { return true }
        return request.headers[.userAgent]?.hasPrefix("Mozilla/") == true
    }

    /// The best quality an `Accept` header gives HTML and JSON.
    static func acceptRanks(_ accept: String?) -> (html: Double, json: Double) {
        guard let accept else { return (0, 0) }
        var html = 0.0, json = 0.0
        for part in accept.split(separator: ",").prefix(32) {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch pieces.first {
            case "text/html", "application/xhtml+xml": html = max(html, quality)
            case "application/json": json = max(json, quality)
            default: break
            }
        }
        return (html, json)
    }

    func authorize(_ request: Request, _ context: AppRequestContext, parameters given: OAuthParameters? = nil) async -> Response {
        let parameters: OAuthParameters
        do {
            parameters = try given ?? RequestParameters.query(request)
        } catch {
            return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The request could not be read."))
        }
        let browser = BrowserContext(ssoToken: cookies.ssoToken(request),
                                     webSSOValue: request.cookies[cookies.name(Self.webSSOCookieBase)]?.value,
                                     binding: cookies.existingBinding(request), clientAddress: services.clientAddress(request, context))
        let result = await engine.authorize.authorize(parameters, browser: browser)
        var response = render(result.outcome)
        if let binding = result.binding { cookies.setBinding(binding, on: &response) }
        if result.clearWebSSO {
            response.setCookie(Cookie(name: cookies.name(Self.webSSOCookieBase), value: "", maxAge: 0, path: "/",
                                      secure: services.secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }

    /// Renders what the authorization endpoint decided (also the account page's own sign-in).
    func render(_ outcome: AuthorizeOutcome) -> Response {
        switch outcome {
        case .errorPage(let error, let back):
            return services.pages.errorPage(error, back: back)
        case .redirect(let answer, let sso):
            var response = services.pages.answer(answer)
            cookies.setSSO(sso, on: &response)
            return response
        case .secondStep(let page), .consent(let page):
            return Responses.redirect(page)
        case .upstream(let action):
            return services.pages.upstreamAction(action)
        case .loginForm(let form):
            return services.pages.loginPage(form)
        case .customPage(let location):
            return Responses.redirect(location)
        case .accountChooser(let chooser):
            return services.pages.accountChooser(chooser)
        }
    }

    /// The automated authorization grant: answers `{"temp_login_uri": ...}` and never redirects.
    func automatedGrant(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let parameters = try await RequestParameters.body(request, context: context)
        let uri = try await engine.authorize.automatedGrant(parameters, basic: try RequestParameters.basic(request),
                                                            clientAddress: services.clientAddress(request, context))
        return Responses.json(["temp_login_uri": uri])
    }
}
