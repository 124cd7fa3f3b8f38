import Foundation
import StoreContracts

extension OperatorTools {
    /// The registered mobile app instances of one environment (`idconnect clients list`).
    /// Throws when the environment is not configured, so a typo is not mistaken for "no instances".
    public func instances(appKey: String) async throws -> [RegisteredClient] {
        guard config.environments.contains(where: { $0.appKey == appKey }) else {
            throw OperatorToolError("No environment with appKey '\(appKey)' is configured.")
        }
        return try await store.registeredClients(appKey: appKey)
    }

    /// Removes an instance and revokes its token families, so its tokens stop validating
    /// (`idconnect clients revoke`); its sessions end unless another app holds tokens in them.
    /// Returns false when no such instance exists.
    public func revokeInstance(id: String) async throws -> Bool {
        guard try await store.registeredClient(id: id) != nil else { return false }
        try await AppRevocation(store: store, accessTokenWindow: keyRetention).revokeFamilies(ofClient: id, at: clock.now())
        return try await store.deleteRegisteredClient(id: id)
    }
}

/// A failed operator command, with a message for the terminal.
public struct OperatorToolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
