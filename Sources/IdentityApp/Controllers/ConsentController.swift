import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The consent screen (docs/consent.md): `GET /oauth/consent/{id}` shows it, `POST` takes Allow
/// or Deny. Both belong to the browser that started the sign-in (its binding cookie); the form
/// carries the CSRF token bound to that browser and the sign-in.
struct ConsentController {
    let services: AppServices

    private var engine: BrokerEngine { services.engine }

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/consent/:id", allow: [.get, .post])
        group.get("oauth/consent/:id") { request, context in
            do throws(AuthorizationFailure) {
                let model = try await engine.consentScreen.show(Self.id(context), browser: services.browser(request, context))
                return services.pages.consent(model)
            } catch {
                return services.render(error)
            }
        }
        group.post("oauth/consent/:id") { request, context in
            let form: OAuthParameters
            do { form = try await RequestParameters.body(request, context: context) } catch {
                return services.pages.errorPage((error as? OAuthError) ?? .invalidRequest("The form could not be read."))
            }
            do throws(AuthorizationFailure) {
                switch try await engine.consentScreen.decide(Self.id(context), browser: services.browser(request, context), form: form) {
                case .page(let model):
                    return services.pages.consent(model)
                case .finished(let result):
                    return services.render(result)
                case .redirect(let answer):
                    return services.pages.answer(answer)
                }
            } catch {
                return services.render(error)
            }
        }
    }

    static func id(_ context: AppRequestContext) -> String { context.parameters.get("id") ?? "" }
}
