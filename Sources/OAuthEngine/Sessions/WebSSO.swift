import Foundation
import IdentityCore
import Logging
import StoreContracts

/// What a `css` value stands for: the instance user's session, sealed under the value's hash.
struct WebSSOGrant: Codable {
    var sessionId: String
    var subject: String
    /// The auth service namespace the session belongs to; only clients of it may use the value.
    var namespace: String
}

/// App-to-web SSO (docs/protocol.md, "App-to-web SSO"): a signed-in app instance hands its browser
/// a one-time `css` value that signs the browser in as the instance's bound user without the form.
public struct WebSSO: Sendable {
    let grants: any OneTimeGrantStore
    let instances: any RegisteredClientStore
    let sessionStore: any SessionStore
    let live: LiveState
    let clock: any BrokerClock
    let logger: Logger

    /// How long a `css` value can be presented by a browser.
    public static let lifetime: TimeInterval = 300

    /// A new value for the instance's bound session (only its hash is stored; the session it
    /// names is sealed); nil when the instance is not bound.
    func issue(for client: ResolvedClient) async throws -> String? {
        guard let instance = client.instance,
              let current = try await instances.registeredClient(id: instance.clientId),
              let sessionId = current.sessionId, let subject = current.boundSubject else { return nil }
        let value = Secrets.randomToken()
        let hash = Secrets.hash(value)
        let grant = WebSSOGrant(sessionId: sessionId, subject: subject, namespace: client.authService.namespace)
        let sealed = try live.snapshot.vault.seal(try JSONEncoder.sortedCompact.encode(grant), VaultBindings.webSSO(hash: hash))
        try await grants.insertOneTimeGrant(hash: hash, sealed: sealed, expiresAt: clock.now().addingTimeInterval(Self.lifetime))
        return value
    }

    /// Takes a value presented by a browser: the live session it names when it is unused,
    /// unexpired, for `client`'s auth service and still the same user; else nil. The value is
    /// used up whatever the outcome.
    public func redeem(_ value: String, for client: ResolvedClient) async -> LoginSession? {
        guard value.utf8.count == 43, Base64URL.decode(value) != nil else { return nil }
        let hash = Secrets.hash(value)
        let now = clock.now()
        do {
            guard let taken = try await grants.takeOneTimeGrant(hash: hash), now < taken.expiresAt else { return nil }
            let grant = try JSONDecoder().decode(WebSSOGrant.self,
                                                 from: try live.snapshot.vault.open(taken.sealed, VaultBindings.webSSO(hash: hash)))
            guard grant.namespace == client.authService.namespace,
                  let session = try await sessionStore.session(id: grant.sessionId),
                  session.isActive(at: now), session.subject == grant.subject else { return nil }
            return session
        } catch {
            logger.warning("could not redeem an app-to-web SSO value", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
