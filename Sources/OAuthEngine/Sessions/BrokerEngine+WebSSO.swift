import Foundation
import IdentityCore
import StoreContracts

/// What a `css` value stands for: the instance user's session, sealed under the value's hash.
struct WebSSOGrant: Codable {
    var sessionId: String
    var subject: String
    /// The auth service namespace the session belongs to; only clients of it may use the value.
    var namespace: String
}

extension BrokerEngine {
    /// How long a `css` value can be presented by a browser (SPEC §3.8).
    public static let webSSOLifetime: TimeInterval = 300

    static func webSSOBinding(hash: String) -> Vault.Binding { .init(purpose: "css", owner: hash) }

    /// App-to-web SSO: mints a one-time value that lets a browser sign in as the instance's bound
    /// user without the form. Only the hash is stored; the session it names is sealed.
    func issueWebSSOValue(for client: ResolvedClient) async throws -> String? {
        guard let instance = client.instance,
              let current = try await store.registeredClient(id: instance.clientId),
              let sessionId = current.sessionId, let subject = current.boundSubject else { return nil }
        let value = Secrets.randomToken()
        let hash = Secrets.hash(value)
        let grant = WebSSOGrant(sessionId: sessionId, subject: subject, namespace: client.authService.namespace)
        let sealed = try vault.seal(try JSONEncoder.sortedCompact.encode(grant), Self.webSSOBinding(hash: hash))
        try await store.insertOneTimeGrant(hash: hash, sealed: sealed, expiresAt: clock.now().addingTimeInterval(Self.webSSOLifetime))
        return value
    }

    /// Takes a `css` value presented by a browser to `/oauth/auth`: the live session it names when
    /// it is unused, unexpired, for `client`'s auth service and still the same user; else nil.
    /// The value is used up whatever the outcome.
    public func redeemWebSSOValue(_ value: String, for client: ResolvedClient) async -> LoginSession? {
        guard value.utf8.count == 43, Base64URL.decode(value) != nil else { return nil }
        let hash = Secrets.hash(value)
        let now = clock.now()
        do {
            guard let taken = try await store.takeOneTimeGrant(hash: hash), now < taken.expiresAt else { return nil }
            let grant = try JSONDecoder().decode(WebSSOGrant.self, from: try vault.open(taken.sealed, Self.webSSOBinding(hash: hash)))
            guard grant.namespace == client.authService.namespace,
                  let session = try await store.session(id: grant.sessionId),
                  session.isActive(at: now), session.subject == grant.subject else { return nil }
            return session
        } catch {
            logger.warning("could not redeem an app-to-web SSO value", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
