import Foundation
import IdentityStore

extension OperatorTools {
    /// The registered mobile app instances of one environment (`idconnect clients list`).
    /// Throws when the environment is not configured, so a typo is not mistaken for "no instances".
    public func instances(appKey: String) async throws -> [RegisteredClient] {
        guard config.environments.contains(where: { $0.appKey == appKey }) else {
            throw OperatorToolError("No environment with appKey '\(appKey)' is configured.")
        }
        return try await store.registeredClients(appKey: appKey)
    }

    /// Removes an instance and ends its sign-in session, so its tokens stop validating
    /// (`idconnect clients revoke`). Returns false when no such instance exists.
    public func revokeInstance(id: String) async throws -> Bool {
        guard let instance = try await store.registeredClient(id: id) else { return false }
        if let sessionId = instance.sessionId { try await store.revokeSession(id: sessionId, at: clock.now()) }
        return try await store.deleteRegisteredClient(id: id)
    }
}

/// A failed operator command, with a message for the terminal.
public struct OperatorToolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
