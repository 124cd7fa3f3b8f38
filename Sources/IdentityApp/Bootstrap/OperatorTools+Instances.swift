import Foundation
import OAuthEngine
import StoreContracts

extension OperatorTools {
    /// The registered mobile app instances of one environment, or of every configured one when
    /// `appKey` is nil (`idconnect instances list`). Throws when the environment is not
    /// configured, so a typo is not mistaken for "no instances".
    public func instances(appKey: String?) async throws -> [RegisteredClient] {
        guard let appKey else {
            var all: [RegisteredClient] = []
            for environment in config.environments { all += try await store.registeredClients(appKey: environment.appKey) }
            return all
        }
        guard config.environments.contains(where: { $0.appKey == appKey }) else {
            throw OperatorToolError("No environment with appKey '\(appKey)' is configured.")
        }
        return try await store.registeredClients(appKey: appKey)
    }

    /// Removes an instance and revokes its token families, so its tokens stop validating at once
    /// on every broker (`idconnect instances delete`); its sessions end unless another app holds
    /// tokens in them. Returns false when no such instance exists.
    public func deleteInstance(id: String) async throws -> Bool {
        guard let instance = try await store.registeredClient(id: id) else { return false }
        let ended = try await AppRevocation(families: store, sessions: store, accessTokenWindow: keyRetention).revokeFamilies(ofClient: id, at: clock.now())
        for session in ended { audit.record(.sessionEnded(session: session, reason: .instanceDeleted, client: id)) }
        let deleted = try await store.deleteRegisteredClient(id: id)
        if deleted {
            audit.record(AuditEvent(.instanceDeleted, ["client": id, "app_key": instance.appKey, "by": "operator"]))
        }
        return deleted
    }
}

/// A failed operator command, with a message for the terminal.
public struct OperatorToolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
