import Hummingbird
import OAuthEngine

/// The controllers' side of browser sign-ins (docs/architecture.md, "Browser sign-ins"): what a
/// request brings (``browser(_:_:)``), and the one way every flow's end is rendered.
extension AppServices {
    /// The browser's cookies, address and User-Agent, as the engine's sign-in flows take them.
    func browser(_ request: Request, _ context: AppRequestContext) -> BrowserContext {
        BrowserContext(ssoToken: cookies.ssoToken(request), binding: cookies.existingBinding(request),
                       clientAddress: clientAddress(request, context), userAgent: request.headers[.userAgent])
    }

    /// Signed in: back to the client with the new SSO cookie; or on to the second step or the
    /// consent screen (303).
    func render(_ result: BrowserSignInResult) -> Response {
        switch result {
        case .signedIn(let completion):
            var response = pages.answer(completion.redirect)
            cookies.setSSO(completion.sso, on: &response)
            return response
        case .secondStep(let page), .consent(let page):
            return Responses.redirect(page, status: .seeOther)
        }
    }

    /// A sign-in that failed: back to the client with the error when its redirect URI is known
    /// and trusted, an error page otherwise.
    func render(_ failure: AuthorizationFailure) -> Response {
        switch failure {
        case .cannotRedirect(let error): pages.errorPage(error)
        case .redirect(let error, let target): pages.answer(target.answer(for: error))
        }
    }
}
