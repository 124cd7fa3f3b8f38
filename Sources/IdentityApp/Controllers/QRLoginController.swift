import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The browser's side of QR-code login (docs/qr-login.md): the code page, its long-polled state,
/// finishing the sign-in; and `GET /oauth/qr`, where the code leads a phone's camera app.
struct QRLoginController {
    let services: AppServices

    private var engine: BrokerEngine { services.engine }
    private var cookies: BrowserCookies { services.cookies }

    func register(on group: RouterGroup<AppRequestContext>) {
        for path in ["oauth/qr", "oauth/qr/start/:id", "oauth/qr/restart", "oauth/qr/status", "oauth/qr/finish"] {
            group.refuseOtherMethods(RouterPath(path), allow: [.get])
        }
        group.get("oauth/qr") { _, _ in services.pages.qrScanHint() }
        group.get("oauth/qr/start/:id") { request, context in
            await show { () async throws(AuthorizationFailure) -> QRLoginDisplay in
                try await engine.qrBrowser.start(pendingId: context.parameters.get("id") ?? "", browserBinding: cookies.existingBinding(request),
                                                 userAgent: request.headers[.userAgent], acceptLanguage: request.headers[.acceptLanguage],
                                                 clientAddress: services.clientAddress(request, context))
            }
        }
        group.get("oauth/qr/restart") { request, context in
            await show { () async throws(AuthorizationFailure) -> QRLoginDisplay in
                try await engine.qrBrowser.restart(code: Self.code(request), browserBinding: cookies.existingBinding(request),
                                                   userAgent: request.headers[.userAgent], acceptLanguage: request.headers[.acceptLanguage],
                                                   clientAddress: services.clientAddress(request, context))
            }
        }
        group.get("oauth/qr/status") { request, _ in
            // `wait`: seconds to hold the answer while nothing happened (0–25, default 20).
            let wait = (try? RequestParameters.query(request))?["wait"].flatMap(Int.init).map { min(max($0, 0), 25) } ?? 20
            let state = await engine.qrBrowser.state(code: Self.code(request), browserBinding: cookies.existingBinding(request),
                                                     wait: .seconds(wait))
            return Responses.json(object: ["state": .string(state.rawValue)])
        }
        group.get("oauth/qr/finish") { request, context in await finish(request, context) }
    }

    static func code(_ request: Request) -> String {
        (try? RequestParameters.query(request))?["code"] ?? ""
    }

    private func show(_ start: () async throws(AuthorizationFailure) -> QRLoginDisplay) async -> Response {
        do {
            return services.pages.qrLogin(try await start())
        } catch {
            return services.render(error)
        }
    }

    private func finish(_ request: Request, _ context: AppRequestContext) async -> Response {
        do {
            switch try await engine.qrBrowser.finish(code: Self.code(request), browser: services.browser(request, context)) {
            case .finished(let result):
                return services.render(result)
            case .pending(let display):
                return services.pages.qrLogin(display)
            case .refused(let back):
                return services.pages.qrRefused(back: back)
            case .expired(let restart):
                return services.pages.qrExpired(restart: restart)
            }
        } catch {
            return services.render(error)
        }
    }
}
