import Foundation
import IdentityCore
@testable import OAuthEngine
import StoreContracts
import Testing

/// The engine of a real test broker (configuration, SQLite store in a temporary directory,
/// signing keys, manual clock) driven directly: no HTTP server. For unit tests of the grants and
/// the authorize decision.
struct EngineHarness {
    let broker: TestBroker
    var engine: BrokerEngine { broker.engine }
    var clock: ManualClock { broker.clock }

    static func make(files: [String: String] = TestBroker.defaultConfig()) async throws -> EngineHarness {
        EngineHarness(broker: try await TestBroker.make(files: files))
    }

    static func parameters(_ pairs: [(String, String)]) throws -> OAuthParameters { try OAuthParameters(pairs: pairs) }

    /// The authorization request of `pairs`, checked as `/oauth/auth` checks it.
    func request(_ pairs: [(String, String)]) async throws -> AuthorizationRequest {
        let state = engine.state
        return try await AuthorizationRequest.parse(try Self.parameters(pairs), issuer: engine.issuer) { try await engine.clients.resolve($0, in: state) }
    }

    /// Signs `username` in through the temp login URI of an API-mode authorization and returns
    /// the code (and the redirect it came in).
    func code(clientId: String = TestBroker.appKey, username: String = "alice", password: String = "alicepw",
              scope: String = "openid", pkce: Bool = true) async throws -> String {
        var pairs = [("client_id", clientId), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("scope", scope)]
        if pkce { pairs += [("code_challenge", Flows.challenge), ("code_challenge_method", "S256")] }
        let id = try await engine.authorizations.begin(try await request(pairs), mode: .api)
        let outcome = try await engine.passwordSignIn.signIn(pendingId: id, parameters: try Self.parameters([
            ("username", username), ("password", password)]), csrfToken: nil)
        guard case .finished(.signedIn(let completion)) = outcome else {
            Issue.record("sign-in did not complete: \(outcome)")
            throw CancellationError()
        }
        return try #require(queryItems(completion.redirect)["code"])
    }

    /// Runs `grant_type` at the token endpoint with `pairs` (and Basic credentials when given).
    func token(_ pairs: [(String, String)], basic: BasicCredentials? = BasicCredentials(user: TestBroker.appKey, password: TestBroker.appSecret))
        async throws -> TokenResponse {
        try await engine.tokens.token(try Self.parameters(pairs), basic: basic)
    }

    /// The OAuth error code `body` throws, or nil when it succeeds.
    static func errorCode(_ body: () async throws -> some Any) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as OAuthError {
            return error.code.rawValue
        } catch let failure as AuthorizationFailure {
            return failure.error.code.rawValue
        } catch {
            return "unexpected: \(error)"
        }
    }
}
