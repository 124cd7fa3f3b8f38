import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: RegisteredClientStore {
    public func insertRegisteredClient(_ client: RegisteredClient) async throws {
        let data = try encode(client)
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO registered_clients (client_id, app_key, data, bound_subject, created_at) VALUES (?, ?, ?, ?, ?)
                """).execute(arguments: [client.clientId, client.appKey, data, client.boundSubject, client.createdAt.sql])
            try Self.indexWebOrigins(client.allowedWebOrigins, of: client.clientId, in: db)
        }
    }

    public func registeredClient(id: String) async throws -> RegisteredClient? {
        let data = try await pool.read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE client_id = ?"), arguments: [id])
        }
        return try data.map { try decode(RegisteredClient.self, $0) }
    }

    public func registeredClients(appKey: String) async throws -> [RegisteredClient] {
        let rows = try await pool.read { db in
            try Data.fetchAll(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE app_key = ? ORDER BY created_at, client_id"),
                              arguments: [appKey])
        }
        return try rows.map { try decode(RegisteredClient.self, $0) }
    }

    public func registeredClients(boundTo subject: String) async throws -> [RegisteredClient] {
        let rows = try await pool.read { db in
            try Data.fetchAll(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE bound_subject = ? ORDER BY created_at, client_id"),
                              arguments: [subject])
        }
        return try rows.map { try decode(RegisteredClient.self, $0) }
    }

    public func updateRegisteredClient(_ client: RegisteredClient, expectedTokenHash: String) async throws -> Bool {
        try await write { db in
            guard let data = try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE client_id = ?"),
                                               arguments: [client.clientId]) else { return false }
            let stored = try self.decode(RegisteredClient.self, data)
            guard stored.registrationTokenHash == expectedTokenHash else { return false }
            let merged = stored.applyingMetadata(of: client)
            try db.cachedStatement(sql: "UPDATE registered_clients SET data = ? WHERE client_id = ?")
                .execute(arguments: [try self.encode(merged), client.clientId])
            if merged.allowedWebOrigins != stored.allowedWebOrigins {
                try Self.unindexWebOrigins(of: client.clientId, in: db)
                try Self.indexWebOrigins(merged.allowedWebOrigins, of: client.clientId, in: db)
            }
            return true
        }
    }

    public func bindRegisteredClient(id: String, subject: String, sessionId: String, at date: Date) async throws -> Bool {
        try await write { db in
            guard let data = try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE client_id = ?"),
                arguments: [id]) else {
                return false
            }
            var client = try self.decode(RegisteredClient.self, data)
            if let bound = client.boundSubject, bound != subject { return false }
            client.boundSubject = subject
            client.sessionId = sessionId
            client.boundAt = date
            try db.cachedStatement(sql: "UPDATE registered_clients SET data = ?, bound_subject = ? WHERE client_id = ?")
                .execute(arguments: [try self.encode(client), subject, id])
            return true
        }
    }

    public func unbindRegisteredClientSession(id: String) async throws {
        try await write { db in
            guard let data = try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM registered_clients WHERE client_id = ?"),
                arguments: [id]) else {
                return
            }
            var client = try self.decode(RegisteredClient.self, data)
            client.sessionId = nil
            try db.cachedStatement(sql: "UPDATE registered_clients SET data = ? WHERE client_id = ?")
                .execute(arguments: [try self.encode(client), id])
        }
    }

    public func deleteRegisteredClient(id: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM registered_clients WHERE client_id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
    }

    public func purgeUnboundRegisteredClients(registeredBefore date: Date) async throws -> Int {
        try await writeOffLoop { db in
            try db.cachedStatement(sql: "DELETE FROM registered_clients WHERE bound_subject IS NULL AND created_at < ?")
                .execute(arguments: [date.sql])
            return db.changesCount
        }
    }

    /// Deleting and purging instances removes their rows here too (`ON DELETE CASCADE`; GRDB
    /// turns SQLite's foreign keys on for every connection).
    public func registeredClientListsWebOrigin(_ origin: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM registered_client_origins WHERE origin = ? LIMIT 1"),
                              arguments: [origin]) ?? false
        }
    }

    /// Rows of `registered_client_origins` for an instance's origins (none written when it lists none).
    private static func indexWebOrigins(_ origins: [String], of clientId: String, in db: Database) throws {
        for origin in origins {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO registered_client_origins (origin, client_id) VALUES (?, ?)")
                .execute(arguments: [origin, clientId])
        }
    }

    private static func unindexWebOrigins(of clientId: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM registered_client_origins WHERE client_id = ?").execute(arguments: [clientId])
    }
}
