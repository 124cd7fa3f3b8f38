import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine
import PageLanguages

/// The second step of a browser sign-in (docs/mfa.md): `GET|POST /oauth/mfa/{id}` (the page and
/// its code form), `POST /oauth/mfa/{id}/passkey` (the page script's passkey answers, JSON) and
/// `POST /oauth/mfa/{id}/continue` (after the recovery codes). Everything is bound to the browser
/// that started the sign-in; finishing issues a fresh SSO cookie (docs/security.md, rule 10).
struct SecondStepController {
    let services: AppServices

    private var engine: BrokerEngine { services.engine }
    private var cookies: BrowserCookies { services.cookies }

    /// The largest passkey answer read (an attestation object is at most 64 KiB).
    static let maxPasskeyBody = 256 * 1024

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/mfa/:id", allow: [.get, .post])
        group.refuseOtherMethods("oauth/mfa/:id/passkey", allow: [.post])
        group.refuseOtherMethods("oauth/mfa/:id/continue", allow: [.post])
        group.refuseOtherMethods("oauth/mfa/:id/restart", allow: [.post])
        group.get("oauth/mfa/:id") { request, context in
            await form(request) { () async throws(AuthorizationFailure) -> SecondStepOutcome in
                try await engine.secondStep.page(id: Self.id(context), browser: services.browser(request, context))
            }
        }
        group.post("oauth/mfa/:id") { request, context in
            let parameters: OAuthParameters
            do { parameters = try await RequestParameters.body(request, context: context) } catch {
                return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The form could not be read."))
            }
            return await form(request) { () async throws(AuthorizationFailure) -> SecondStepOutcome in
                try await engine.secondStep.submitCode(id: Self.id(context), parameters: parameters,
                                                       browser: services.browser(request, context))
            }
        }
        group.post("oauth/mfa/:id/continue") { request, context in
            let parameters: OAuthParameters
            do { parameters = try await RequestParameters.body(request, context: context) } catch {
                return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The form could not be read."))
            }
            return await form(request) { () async throws(AuthorizationFailure) -> SecondStepOutcome in
                try await engine.secondStep.proceed(id: Self.id(context), parameters: parameters,
                                                    browser: services.browser(request, context))
            }
        }
        group.post("oauth/mfa/:id/restart") { request, context in
            let parameters: OAuthParameters
            do { parameters = try await RequestParameters.body(request, context: context) } catch {
                return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The form could not be read."))
            }
            return await form(request) { () async throws(AuthorizationFailure) -> SecondStepOutcome in
                try await engine.secondStep.restart(id: Self.id(context), parameters: parameters, browser: services.browser(request, context))
            }
        }
        group.post("oauth/mfa/:id/passkey") { request, context in
            var request = request
            guard let buffer = try? await request.collectBody(upTo: Self.maxPasskeyBody) else {
                return Responses.json(["error": "The passkey answer is too large."], status: .contentTooLarge)
            }
            let body = Data(buffer: buffer)
            do {
                let outcome = try await engine.secondStep.submitPasskey(id: Self.id(context), body: body,
                                                                      browser: services.browser(request, context))
                return json(outcome)
            } catch let failure as AuthorizationFailure {
                return Responses.json(["error": failure.error.errorDescription], status: .badRequest)
            } catch {
                return Responses.json(["error": "The passkey answer could not be handled."], status: .internalServerError)
            }
        }
    }

    static func id(_ context: AppRequestContext) -> String { context.parameters.get("id") ?? "" }

    /// Renders an outcome for a form or page request.
    private func form(_ request: Request, _ step: () async throws(AuthorizationFailure) -> SecondStepOutcome) async -> Response {
        do {
            switch try await step() {
            case .page(let model, let status):
                return services.pages.secondStep(model, status: .init(code: status))
            case .next(let location):
                return Responses.redirect(location, status: .seeOther)
            case .redirect(let answer):
                return services.pages.answer(answer)
            case .finished(let result):
                return services.render(result)
            }
        } catch {
            return services.render(error)
        }
    }

    /// Renders an outcome for the page's script: where to go next, or why it failed.
    private func json(_ outcome: SecondStepOutcome) -> Response {
        switch outcome {
        case .page(let model, let status):
            let words = Pages.words(model.look)
            return Responses.json(["error": words(model.error ?? "The passkey was not accepted.")], status: .init(code: status))
        case .next(let location):
            return Responses.json(["redirect": location])
        case .redirect(let answer):
            return Responses.json(object: Pages.answerJSON(answer))
        case .finished(.secondStep(let location)), .finished(.consent(let location)):
            return Responses.json(["redirect": location])
        case .finished(.signedIn(let completion)):
            var response = Responses.json(object: Pages.answerJSON(completion.redirect))
            cookies.setSSO(completion.sso, on: &response)
            return response
        }
    }
}
