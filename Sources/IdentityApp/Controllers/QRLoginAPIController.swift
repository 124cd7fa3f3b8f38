import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The QR-login mobile API at exactly Blitz Identity Provider's paths (docs/qr-login.md):
/// `GET /api/v3/auth/qr/{code}`, `POST …/confirm`, `POST …/refuse`.
struct QRLoginAPIController {
    let services: AppServices

    private var api: QRLoginAPI { services.engine.qrAPI }

    func register(on router: Router<AppRequestContext>) {
        router.refuseOtherMethods("api/v3/auth/qr/:code", allow: [.get])
        router.refuseOtherMethods("api/v3/auth/qr/:code/confirm", allow: [.post])
        router.refuseOtherMethods("api/v3/auth/qr/:code/refuse", allow: [.post])
        router.get("api/v3/auth/qr/:code") { request, context in
            await answer { () async throws(QRAPIError) -> Response in
                Responses.json(object: try await api.info(code: Self.code(context), bearer: Self.bearer(request),
                                                          acceptLanguage: request.headers[.acceptLanguage]))
            }
        }
        router.post("api/v3/auth/qr/:code/confirm") { request, context in
            await answer { () async throws(QRAPIError) -> Response in
                try await api.confirm(code: Self.code(context), bearer: Self.bearer(request),
                                      clientAddress: services.clientAddress(request, context))
                return Self.noContent
            }
        }
        router.post("api/v3/auth/qr/:code/refuse") { request, context in
            let body = await Self.jsonObject(request, context)
            return await answer { () async throws(QRAPIError) -> Response in
                try await api.refuse(code: Self.code(context), bearer: Self.bearer(request), body: body,
                                     clientAddress: services.clientAddress(request, context))
                return Self.noContent
            }
        }
    }

    static var noContent: Response { Response(status: .noContent, headers: [.cacheControl: "no-store"]) }

    static func code(_ context: AppRequestContext) -> String { context.parameters.get("code") ?? "" }

    /// The bearer token; a malformed `Authorization` header counts as none.
    static func bearer(_ request: Request) -> String? { (try? SessionController.bearer(request)) ?? nil }

    /// The body as a JSON object; nil when absent or not an object (refuse then answers 400).
    static func jsonObject(_ request: Request, _ context: AppRequestContext) async -> [String: JSONValue]? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: 16_384),
              case .object(let object)? = JSONValue(parsing: Data(buffer: buffer)) else { return nil }
        return object
    }

    private func answer(_ body: () async throws(QRAPIError) -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            var response = Responses.json(object: error.body, status: .init(code: error.status))
            if error.status == 401 { response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token""# }
            return response
        }
    }
}
