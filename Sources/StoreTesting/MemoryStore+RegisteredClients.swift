import Foundation
import StoreContracts

extension MemoryStore: RegisteredClientStore {
    public func insertRegisteredClient(_ client: RegisteredClient) async throws {
        try transaction { try $0.registeredClients.insertNew(client, at: client.clientId, table: "registered_clients") }
    }

    public func registeredClient(id: String) async throws -> RegisteredClient? {
        try read { $0.registeredClients[id] }
    }

    public func registeredClients(appKey: String) async throws -> [RegisteredClient] {
        try read { tables in tables.registeredClientsOldestFirst { $0.appKey == appKey } }
    }

    public func registeredClients(boundTo subject: String) async throws -> [RegisteredClient] {
        try read { tables in tables.registeredClientsOldestFirst { $0.boundSubject == subject } }
    }

    public func updateRegisteredClient(_ client: RegisteredClient, expectedTokenHash: String) async throws -> Bool {
        try transaction { tables in
            guard let stored = tables.registeredClients[client.clientId], stored.registrationTokenHash == expectedTokenHash else {
                return false
            }
            tables.registeredClients[client.clientId] = stored.applyingMetadata(of: client)
            return true
        }
    }

    public func bindRegisteredClient(id: String, subject: String, sessionId: String, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard var client = tables.registeredClients[id], client.boundSubject == nil || client.boundSubject == subject else {
                return false
            }
            client.boundSubject = subject
            client.sessionId = sessionId
            client.boundAt = date
            tables.registeredClients[id] = client
            return true
        }
    }

    public func unbindRegisteredClientSession(id: String) async throws {
        try transaction { tables in tables.registeredClients[id]?.sessionId = nil }
    }

    public func deleteRegisteredClient(id: String) async throws -> Bool {
        try transaction { $0.registeredClients.removeValue(forKey: id) != nil }
    }

    public func purgeUnboundRegisteredClients(registeredBefore date: Date) async throws -> Int {
        try transaction { tables in
            let purged = tables.registeredClients.values.filter { $0.boundSubject == nil && $0.createdAt < date }.map(\.clientId)
            for id in purged { tables.registeredClients[id] = nil }
            return purged.count
        }
    }

    /// Read from the instances as they are now: an instance's `allowedWebOrigins` follow from
    /// what insert and update store, so deletes and purges take their origins along by themselves.
    public func registeredClientListsWebOrigin(_ origin: String) async throws -> Bool {
        try read { tables in tables.registeredClients.values.contains { $0.allowedWebOrigins.contains(origin) } }
    }
}

extension MemoryTables {
    /// The instances `included` keeps, oldest first (then by client id, as the SQL backends order them).
    func registeredClientsOldestFirst(_ included: (RegisteredClient) -> Bool) -> [RegisteredClient] {
        registeredClients.values.filter(included).sorted { left, right in
            left.createdAt.isBefore(right.createdAt, orElse: left.clientId.precedesInBytes(right.clientId))
        }
    }
}
