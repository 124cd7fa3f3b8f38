import Hummingbird
import IdentityCore
import OAuthEngine

/// `POST /oauth/backchannel-logout/{client}`: an OpenID provider's `logout_token`, form-encoded
/// (OpenID Connect Back-Channel Logout 1.0 §2.5; docs/connectors/oauth2-oidc.md). 200 with an
/// empty body when it was taken, whether or not a session was still live; 400 with an OAuth error
/// when it was refused; 503 when the provider's keys or the storage could not be reached. Never
/// cached. Under `/v1`–`/v3` too, as every `/oauth/` endpoint.
struct BackchannelLogoutController {
    let services: AppServices

    func register(on group: RouterGroup<AppRequestContext>) {
        group.refuseOtherMethods("oauth/backchannel-logout/:client", allow: [.post])
        group.post("oauth/backchannel-logout/:client") { request, context in
            let parameters = try await RequestParameters.body(request, context: context, maxValueLength: 16_384)
            try await services.engine.backchannelLogout.receive(logoutToken: parameters["logout_token"],
                                                                authService: context.parameters.get("client") ?? "")
            var response = Response(status: .ok)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}
