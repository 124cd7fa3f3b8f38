import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The device authorization grant (RFC 8628, docs/device-grant.md): the device's
/// `POST /oauth/device_authorization`, and the pages where a person types its code, confirms it
/// and signs in (`/oauth/device`, `/oauth/device/confirm`, `/oauth/device/callback`). The device
/// then polls `POST /oauth/token` (``TokenController``).
struct DeviceController {
    let services: AppServices

    /// The device sign-in in progress (sealed; `__Host-idc_device` with https).
    static let flowCookieBase = "idc_device"

    private var engine: BrokerEngine { services.engine }
    private var cookies: BrowserCookies { services.cookies }

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/device_authorization", allow: [.post])
        group.post("oauth/device_authorization") { request, context in
            let parameters = try await RequestParameters.body(request, context: context)
            let answer = try await engine.deviceAuthorization.authorize(parameters, basic: try RequestParameters.basic(request),
                                                                        clientAddress: services.clientAddress(request, context))
            return Responses.json(object: answer.json)
        }
        group.refuseOtherMethods("oauth/device", allow: [.get, .post])
        group.get("oauth/device") { request, context in
            let query = (try? RequestParameters.query(request)) ?? OAuthParameters()
            return render(await engine.deviceVerification.page(userCode: query["user_code"], browser: services.browser(request, context)))
        }
        group.post("oauth/device") { request, context in
            await form(request, context) { await engine.deviceVerification.submit($0, browser: $1) }
        }
        group.refuseOtherMethods("oauth/device/confirm", allow: [.post])
        group.post("oauth/device/confirm") { request, context in
            await form(request, context) { await engine.deviceVerification.decide($0, browser: $1) }
        }
        group.refuseOtherMethods("oauth/device/callback", allow: [.get])
        group.get("oauth/device/callback") { request, context in
            let query = (try? RequestParameters.query(request)) ?? OAuthParameters()
            let flow = request.cookies[cookies.name(Self.flowCookieBase)]?.value
            return render(await engine.deviceVerification.callback(query, flow: flow, browser: services.browser(request, context)))
        }
    }

    private func form(_ request: Request, _ context: AppRequestContext,
                      _ action: (OAuthParameters, BrowserContext) async -> DeviceResult) async -> Response {
        let fields: OAuthParameters
        do { fields = try await RequestParameters.body(request, context: context) } catch {
            return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The form could not be read."))
        }
        return render(await action(fields, services.browser(request, context)))
    }

    /// Renders an outcome with the cookies it changes.
    private func render(_ result: DeviceResult) -> Response {
        let pages = services.pages
        var response: Response
        switch result.outcome {
        case .codeForm(let form, let status):
            response = pages.deviceCodeForm(form, status: .init(code: status))
            if let seconds = form.retryAfter { response.headers[.retryAfter] = String(seconds) }
        case .confirm(let confirmation): response = pages.deviceConfirmation(confirmation)
        case .signIn(let outcome): response = AuthorizeController(services: services).render(outcome)
        case .finished(let finished, let status): response = pages.deviceFinished(finished, status: .init(code: status))
        case .errorPage(let error): response = pages.errorPage(error)
        }
        if let binding = result.binding { cookies.setBinding(binding, on: &response) }
        cookies.setFlow(Self.flowCookieBase, result.flow, maxAge: Int(DeviceVerification.flowLifetime), clear: result.clearFlow,
                        on: &response)
        cookies.setSSO(result.sso, on: &response)
        return response
    }
}
