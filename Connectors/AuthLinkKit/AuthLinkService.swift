import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Logging

/// An AuthLink in a few lines:
///
/// ```swift
/// let service = AuthLinkService(
///     login: { login in
///         guard try await directory.check(login.username, login.password) else { return .denied() }
///         return .authenticated(token: try await backend.session(for: login.username), expiresIn: 3600)
///     },
///     refresh: { refreshToken in .authenticated(token: try await backend.renew(refreshToken), expiresIn: 3600) })
/// try await service.run(port: 9400)
/// ```
///
/// `POST /login` takes `{"username", "password", "otp"?}`, and challenge answers
/// `{"username", "challenge_state", "response"}`; `POST /refresh` takes `{"refresh_token",
/// "grant_type": "refresh_token"}`. Malformed calls get 400; a wrong `X-Auth-Key` (when a
/// shared secret is set) gets 401; a handler that throws answers `server_error`.
public struct AuthLinkService: Sendable {
    public typealias LoginHandler = @Sendable (AuthLinkLogin) async throws -> AuthLinkResult
    public typealias RefreshHandler = @Sendable (String) async throws -> AuthLinkResult
    public typealias ChallengeHandler = @Sendable (AuthLinkChallengeAnswer) async throws -> AuthLinkResult

    let login: LoginHandler
    let refresh: RefreshHandler?
    let challenge: ChallengeHandler?
    let sharedSecret: String?

    /// - Parameter challenge: answers to challenges the login handler returned
    ///   (`{"username", "challenge_state", "response"}` posted to the login path).
    public init(sharedSecret: String? = nil, login: @escaping LoginHandler, refresh: RefreshHandler? = nil,
                challenge: ChallengeHandler? = nil) {
        self.login = login
        self.refresh = refresh
        self.challenge = challenge
        self.sharedSecret = sharedSecret
    }

    /// Adds `POST loginPath` and `POST refreshPath` to a router.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>, loginPath: String = "login",
                                                   refreshPath: String = "refresh") {
        router.post(RouterPath(loginPath)) { request, context in
            try await answer(request, context) { body in
                guard let username = body["username"]?.stringValue else { return nil }
                if let state = body["challenge_state"]?.stringValue, let response = body["response"]?.stringValue {
                    guard let challenge else { return .denied("This AuthLink asks no questions.") }
                    return try await challenge(AuthLinkChallengeAnswer(username: username, state: state, response: response))
                }
                guard let password = body["password"]?.stringValue else { return nil }
                return try await login(AuthLinkLogin(username: username, password: password, otp: body["otp"]?.stringValue))
            }
        }
        router.post(RouterPath(refreshPath)) { request, context in
            try await answer(request, context) { body in
                guard let refresh, let token = body["refresh_token"]?.stringValue, !token.isEmpty else { return nil }
                return try await refresh(token)
            }
        }
    }

    private func answer<Context: RequestContext>(_ request: Request, _ context: Context,
                                                 _ handle: ([String: JSONValue]) async throws -> AuthLinkResult?) async throws -> Response {
        if let sharedSecret, !Secrets.constantTimeEquals(request.headers[HTTPField.Name("X-Auth-Key")!] ?? "", sharedSecret) {
            return Self.response(AuthLinkResult.failed("The X-Auth-Key header is missing or wrong.").wire)
        }
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard case .object(let body)? = JSONValue(parsing: Data(buffer: buffer)) else {
            return Self.response((400, Data(#"{"error":"invalid_request","error_description":"Send a JSON object."}"#.utf8)))
        }
        let result: AuthLinkResult?
        do {
            result = try await handle(body)
        } catch {
            context.logger.error("AuthLink handler failed", metadata: ["error": "\(error)"])
            result = .failed("The AuthLink failed.")
        }
        guard let result else {
            return Self.response((400, Data(#"{"error":"invalid_request","error_description":"Required fields are missing."}"#.utf8)))
        }
        return Self.response(result.wire)
    }

    static func response(_ wire: (status: Int, body: Data)) -> Response {
        Response(status: .init(code: wire.status), headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: .init(bytes: wire.body)))
    }

    /// Serves the AuthLink until SIGTERM/SIGINT.
    public func run(host: String = "127.0.0.1", port: Int, logger: Logger = Logger(label: "authlink")) async throws {
        let router = Router()
        addRoutes(to: router)
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
        try await app.runService()
    }
}
