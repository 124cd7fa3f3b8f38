import Foundation
import IdentityCore
import StoreContracts

/// When an app instance is bound to a user (docs/protocol.md, "Mobile app instances";
/// docs/security.md, rule 1): only when it redeems a code (or password grant) of that user with its
/// own secret. Issuing a code binds nothing.
struct InstanceBinding: Sendable {
    let instances: any RegisteredClientStore
    let clock: any BrokerClock

    /// An instance nobody signed in to within this time after registration is removed.
    static let unboundInstanceLifetime: TimeInterval = 3600
    static let boundToAnotherUser = OAuthError(.accessDenied, "This app instance is registered to another user.")

    /// Binds `client` (when it is an instance) to the user of `session`: the first redemption
    /// binds it, a later one by the same user moves it to the new session, another user is refused.
    func bind(_ client: ResolvedClient, to session: LoginSession) async throws {
        guard let instance = client.instance else { return }
        try checkMayServe(client, subject: session.subject)
        let bound = try await instances.bindRegisteredClient(id: instance.clientId, subject: session.subject,
                                                             sessionId: session.id, at: clock.now())
        guard bound else { throw Self.boundToAnotherUser }
    }

    /// Refuses, before anything is stored or issued, an instance bound to another user and one
    /// nobody signed in to within its first hour (housekeeping removes it soon; until then it
    /// must not be bound either). Binds nothing.
    func checkMayServe(_ client: ResolvedClient, subject: String) throws {
        guard let instance = client.instance else { return }
        if let bound = instance.boundSubject {
            guard Secrets.constantTimeEquals(bound, subject) else { throw Self.boundToAnotherUser }
            return
        }
        if clock.now().timeIntervalSince(instance.createdAt) > Self.unboundInstanceLifetime {
            throw OAuthError(.accessDenied, "This app instance was not signed in to within an hour of its registration; register it again.")
        }
    }
}
