import ConnectorHTTP
import Foundation
import IdentityCore

/// The `custom` connector: an AuthLink HTTP microservice checks the password and hands back a
/// token the broker keeps sealed and forwards to data links
/// (docs/connectors/authlink.md, "The contract").
final class AuthLinkConnector: ChallengingConnector, RefreshingConnector {
    let loginURL: String
    let refreshURL: String?
    let sharedSecret: String?
    let http: UpstreamHTTP
    let clock: any BrokerClock

    init(loginURL: String, refreshURL: String?, sharedSecret: String?, http: UpstreamHTTP, clock: any BrokerClock) {
        self.loginURL = loginURL
        self.refreshURL = refreshURL
        self.sharedSecret = sharedSecret
        self.http = http
        self.clock = clock
    }

    private var headers: [(String, String)] { sharedSecret.map { [("X-Auth-Key", $0)] } ?? [] }

    func login(_ credentials: PasswordCredentials) async throws -> LoginResult {
        guard !credentials.username.isEmpty, !credentials.password.isEmpty else { return .rejected(LoginRejection(.invalidCredentials)) }
        var body = ["username": credentials.username, "password": credentials.password]
        // API mode: a code the client sent with the password goes in the first request
        // (docs/mfa.md, "AuthLink challenges").
        if let otp = credentials.otp, !otp.isEmpty { body["otp"] = otp }
        let answer = try await http.postJSON(loginURL, body, headers: headers, what: "AuthLink service")
        return try loginResult(answer, username: credentials.username)
    }

    /// A challenge answer goes to the same login URL: `{"username", "challenge_state", "response"}`.
    func answer(_ challenge: LoginChallenge, response: String, username: String) async throws -> LoginResult {
        let answer = try await http.postJSON(loginURL, ["username": username, "challenge_state": challenge.state, "response": response],
                                             headers: headers, what: "AuthLink service")
        return try loginResult(answer, username: username)
    }

    private func loginResult(_ answer: UpstreamHTTP.Answer, username: String) throws -> LoginResult {
        switch try interpret(AuthLinkAnswer.read(status: answer.status, body: answer.body)) {
        case .success(let token, let extra):
            let userId = extra["id"]?.stringValue ?? username
            return .authenticated(ConnectorIdentity(userId: userId, attributes: extra.filter { $0.key != "id" }, upstream: token))
        case .refused(let description):
            return .rejected(LoginRejection(.invalidCredentials, message: description))
        case .challenge(let challenge):
            return .challenge(challenge)
        }
    }

    func refresh(userId: String, upstream: UpstreamToken) async throws -> RefreshOutcome {
        guard let refreshURL else { return .ended(reason: "The AuthLink session expired and cannot be refreshed; sign in again.") }
        // docs/connectors/authlink.md, "The contract": when expires_in came without a
        // refresh_token, the token itself is sent.
        let presented = upstream.refreshToken ?? upstream.token
        let answer = try await http.postJSON(refreshURL, ["refresh_token": presented, "grant_type": "refresh_token"],
                                             headers: headers, what: "AuthLink service")
        switch try interpret(AuthLinkAnswer.read(status: answer.status, body: answer.body)) {
        case .success(var token, let extra):
            if token.refreshToken == nil && upstream.refreshToken != nil { token.refreshToken = upstream.refreshToken }
            let attributes = extra.filter { $0.key != "id" }
            return .refreshed(token, attributes: attributes.isEmpty ? nil : attributes)
        case .refused(let description):
            return .ended(reason: description ?? "The AuthLink service refused to refresh the session.")
        case .challenge:
            throw ConnectorFailure(.invalidResponse, "The AuthLink service asked a question when refreshing.")
        }
    }

    enum Outcome {
        case success(UpstreamToken, extra: [String: JSONValue])
        case refused(String?)
        case challenge(LoginChallenge)
    }

    /// Maps an answer to the broker's outcomes; contract violations and failures are thrown.
    private func interpret(_ answer: AuthLinkAnswer) throws -> Outcome {
        switch answer {
        case .authenticated(let token, let refreshToken, let expiresIn, let extra):
            let expiry = expiresIn.map { clock.now().addingTimeInterval($0) }
            return .success(UpstreamToken(token: token, refreshToken: refreshToken, expiresAt: expiry), extra: extra)
        case .denied(let description):
            return .refused(description)
        case .challenge(let message, let state, let input):
            return .challenge(LoginChallenge(message: message, state: state, input: input))
        case .unavailable(let description):
            throw ConnectorFailure(.unavailable, description ?? "The AuthLink service is temporarily unavailable.")
        case .serverError(let description):
            throw ConnectorFailure(.invalidResponse, description ?? "The AuthLink service failed.")
        case .violation(let reason):
            throw ConnectorFailure(.invalidResponse, "The AuthLink service answered outside its contract.", debug: reason)
        }
    }
}
