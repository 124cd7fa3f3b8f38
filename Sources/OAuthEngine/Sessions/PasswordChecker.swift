import Foundation
import IdentityCore
import Logging
import StoreContracts
import Tracing

/// What a first factor came to: the user, or a question the identity source asks first.
enum FirstFactor: Sendable {
    /// The password was right. `unsettled` is the throttle's reset when the caller asked to fold it
    /// into its completing write (`PasswordChecker.attempt(deferringReset:)`); nil when it is done.
    case identity(ConnectorIdentity, unsettled: PendingThrottleReset? = nil)
    case challenge(LoginChallenge)
}

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
    /// - Parameter deferringReset: a correct password's throttle reset is not written here but
    ///   returned with the identity, for the caller to fold into its completing write or settle
    ///   (`PendingThrottleReset`): the caller must settle it.
    func attempt(_ credentials: PasswordCredentials, client: ResolvedClient,
                 clientAddress: String?, deferringReset: Bool = false) async throws -> Result<FirstFactor, OAuthError> {
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
        let reservation: LoginThrottle.Reservation
        switch try await admit(keys, credentials.username, client: client, clientAddress: clientAddress) {
        case .success(let admitted): reservation = admitted
        case .failure(let refusal): return .failure(refusal)
        }
        return try await counted(reservation, credentials.username, client: client, clientAddress: clientAddress,
                                 deferringReset: deferringReset) {
            try await withSpan("connector.login", ofKind: .client) { span in
                span.attributes["connector.type"] = type
                return try await connector.login(credentials)
            }
        }
    }

    /// The person's answer to a connector's challenge, counted in the throttle like a password.
    func answer(_ challenge: LoginChallenge, response: String, username: String, client: ResolvedClient,
                clientAddress: String?) async throws -> Result<FirstFactor, OAuthError> {
        let type = client.service.provider.type
        guard let connector = client.authService.connector as? any ChallengingConnector else {
            throw OAuthError.unauthorizedClient("This auth service does not ask questions at sign-in.")
        }
        guard response.utf8.count <= 1024 else { return .failure(.accessDenied("The answer is too long.")) }
        let keys = LoginThrottle.keys(namespace: client.authService.namespace,
                                      username: connector.accountName(for: username), address: clientAddress)
        let reservation: LoginThrottle.Reservation
        switch try await admit(keys, username, client: client, clientAddress: clientAddress) {
        case .success(let admitted): reservation = admitted
        case .failure(let refusal): return .failure(refusal)
        }
        return try await counted(reservation, username, client: client, clientAddress: clientAddress) {
            try await withSpan("connector.challenge", ofKind: .client) { span in
                span.attributes["connector.type"] = type
                return try await connector.answer(challenge, response: response, username: username)
            }
        }
    }

    /// Reserves the attempt's places in the throttle, or the refusal to answer with.
    private func admit(_ keys: LoginThrottle.Keys, _ username: String, client: ResolvedClient,
                       clientAddress: String?) async throws -> Result<LoginThrottle.Reservation, OAuthError> {
        switch try await throttle.reserve(keys, store: counters, clock: clock) {
        case .admitted(let reservation):
            return .success(reservation)
        case .refused(let decision):
            metrics.login(connector: client.service.provider.type, outcome: "throttled")
            audit.signInFailed(client: client, address: clientAddress, user: username, reason: "throttled")
            return .failure(throttle.refusal(decision, keys: keys, attempt: .password, now: clock.now()))
        }
    }

    /// Runs one connector call whose places are reserved, and settles them by its outcome: a
    /// refusal is a failure, a success clears the username, an identity source that never
    /// answered or asks a question first gives the places back. Any other error counts as a
    /// failure: a connector that answered a guess with an error must not let guessing go uncounted.
    private func counted(_ reservation: LoginThrottle.Reservation, _ username: String, client: ResolvedClient, clientAddress: String?,
                         deferringReset: Bool = false,
                         _ call: () async throws -> LoginResult) async throws -> Result<FirstFactor, OAuthError> {
        let type = client.service.provider.type
        let result: LoginResult
        do {
            result = try await call()
        } catch {
            let failure = ConnectorErrors.oauthError(for: error)
            let outcome = failure.code == .temporarilyUnavailable ? "unavailable" : "error"
            if failure.code == .temporarilyUnavailable {
                try? await throttle.unanswered(reservation, store: counters)
            } else {
                try? await throttle.failed(reservation, store: counters, now: clock.now())
            }
            metrics.login(connector: type, outcome: outcome)
            audit.signInFailed(client: client, address: clientAddress, user: username, reason: outcome)
            logger.warning("connector failure", metadata: ["authService": "\(client.service.id)", "error": "\(failure.debug ?? failure.errorDescription)"])
            throw failure
        }
        switch result {
        case .rejected(let rejection):
            try await throttle.failed(reservation, store: counters, now: clock.now())
            metrics.login(connector: type, outcome: "rejected")
            audit.signInFailed(client: client, address: clientAddress, user: username, reason: "rejected",
                               detail: rejection.message)
            return .failure(.accessDenied(rejection.message))
        case .challenge(let challenge):
            try await throttle.unanswered(reservation, store: counters)
            metrics.login(connector: type, outcome: "challenge")
            return .success(.challenge(challenge))
        case .authenticated(let identity):
            metrics.login(connector: type, outcome: "success")
            if deferringReset {
                return .success(.identity(identity, unsettled: PendingThrottleReset(reservation, throttle: throttle, store: counters)))
            }
            try await throttle.succeeded(reservation, store: counters)
            return .success(.identity(identity))
        }
    }
}
