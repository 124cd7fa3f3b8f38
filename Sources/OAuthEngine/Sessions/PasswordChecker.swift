import Foundation
import IdentityCore
import Logging
import StoreContracts
import Tracing

/// One password attempt against an auth service's connector, with throttling
/// (docs/protocol.md, "Throttling and rate limits"; docs/security.md, rules 6 and 13) and login
/// metrics.
struct PasswordChecker: Sendable {
    let throttle: LoginThrottle
    let counters: any ThrottleStore
    let clock: any BrokerClock
    let metrics: any BrokerMetricsSink
    let audit: AuditTrail
    let logger: Logger

    /// The identity, or the error to show (`access_denied`; 429 when throttled). Outages are
    /// thrown as OAuth errors (503 / 502).
    func attempt(_ credentials: PasswordCredentials, client: ResolvedClient,
                 clientAddress: String?) async throws -> Result<ConnectorIdentity, OAuthError> {
        let type = client.service.provider.type
        guard let connector = client.authService.connector as? any PasswordConnector else {
            throw OAuthError.unauthorizedClient("This auth service does not accept passwords.")
        }
        // Before anything is counted or asked: a flood of huge usernames costs nothing.
        guard credentials.username.utf8.count <= LoginThrottle.maxUsernameBytes else {
            metrics.login(connector: type, outcome: "rejected")
            audit.signInFailed(client: client, address: clientAddress, user: nil, reason: "rejected", detail: "username too long")
            return .failure(.accessDenied("The username is too long."))
        }
        let keys = LoginThrottle.keys(namespace: client.authService.namespace,
                                      username: connector.accountName(for: credentials.username), address: clientAddress)
        guard try await guarded("throttle", { try await throttle.attempt(keys, store: counters, now: clock.now()) }) else {
            metrics.login(connector: type, outcome: "throttled")
            audit.signInFailed(client: client, address: clientAddress, user: credentials.username, reason: "throttled")
            return .failure(OAuthError(.accessDenied, LoginThrottle.message, status: 429,
                                       retryAfter: Int(throttle.perUsername.spacing.rounded(.up))))
        }
        let result: LoginResult
        do {
            result = try await withSpan("connector.login", ofKind: .client) { span in
                span.attributes["connector.type"] = type
                return try await connector.login(credentials)
            }
        } catch {
            let failure = ConnectorErrors.oauthError(for: error)
            let outcome = failure.code == .temporarilyUnavailable ? "unavailable" : "error"
            metrics.login(connector: type, outcome: outcome)
            audit.signInFailed(client: client, address: clientAddress, user: credentials.username, reason: outcome)
            logger.warning("connector failure", metadata: ["authService": "\(client.service.id)", "error": "\(failure.debug ?? failure.errorDescription)"])
            throw failure
        }
        switch result {
        case .rejected(let rejection):
            metrics.login(connector: type, outcome: "rejected")
            audit.signInFailed(client: client, address: clientAddress, user: credentials.username, reason: "rejected",
                               detail: rejection.message)
            return .failure(.accessDenied(rejection.message))
        case .authenticated(let identity):
            try await guarded("throttle") { try await throttle.succeeded(keys, store: counters) }
            metrics.login(connector: type, outcome: "success")
            return .success(identity)
        }
    }
}
