import Foundation
import Logging
import StoreContracts
import PostgresNIO

/// Registered app instances (RFC 7591): the instance is kept as JSON in `data`; `app_key`,
/// `bound_subject` and `created_at` are columns so listing and the 1-hour cleanup need no decoding.
extension PostgresStore: RegisteredClientStore {
    public func insertRegisteredClient(_ client: RegisteredClient) async throws {
        let data = try encode(client)
        let origins = client.allowedWebOrigins
        guard !origins.isEmpty else {
            _ = try await rows("""
                INSERT INTO registered_clients (client_id, app_key, data, bound_subject, created_at)
                VALUES (\(client.clientId), \(client.appKey), \(data), \(client.boundSubject), \(client.createdAt.pg))
                """)
            return
        }
        try await transaction { [self] connection in
            try await connection.query("""
                INSERT INTO registered_clients (client_id, app_key, data, bound_subject, created_at)
                VALUES (\(client.clientId), \(client.appKey), \(data), \(client.boundSubject), \(client.createdAt.pg))
                """, logger: self.logger)
            try await Self.indexWebOrigins(origins, of: client.clientId, on: connection, logger: self.logger)
        }
    }

    public func registeredClient(id: String) async throws -> RegisteredClient? {
        guard let row = try await rows("SELECT data FROM registered_clients WHERE client_id = \(id)").first else { return nil }
        return try decode(RegisteredClient.self, row.decode(Data.self))
    }

    public func registeredClients(appKey: String) async throws -> [RegisteredClient] {
        try await rows("""
            SELECT data FROM registered_clients WHERE app_key = \(appKey) ORDER BY created_at, client_id
            """).map { try decode(RegisteredClient.self, $0.decode(Data.self)) }
    }

    public func registeredClients(boundTo subject: String) async throws -> [RegisteredClient] {
        try await rows("""
            SELECT data FROM registered_clients WHERE bound_subject = \(subject) ORDER BY created_at, client_id
            """).map { try decode(RegisteredClient.self, $0.decode(Data.self)) }
    }

    /// Read, compare and write under the row lock (`FOR UPDATE`).
    public func updateRegisteredClient(_ client: RegisteredClient, expectedTokenHash: String) async throws -> Bool {
        try await transaction { [self] connection in
            let found = try await connection.query("""
                SELECT data FROM registered_clients WHERE client_id = \(client.clientId) FOR UPDATE
                """, logger: self.logger).collect()
            guard let row = found.first else { return false }
            let stored = try self.decode(RegisteredClient.self, row.decode(Data.self))
            guard stored.registrationTokenHash == expectedTokenHash else { return false }
            let merged = stored.applyingMetadata(of: client)
            let data = try self.encode(merged)
            try await connection.query("""
                UPDATE registered_clients SET data = \(data) WHERE client_id = \(client.clientId)
                """, logger: self.logger)
            if merged.allowedWebOrigins != stored.allowedWebOrigins {
                try await connection.query("DELETE FROM registered_client_origins WHERE client_id = \(client.clientId)", logger: self.logger)
                try await Self.indexWebOrigins(merged.allowedWebOrigins, of: client.clientId, on: connection, logger: self.logger)
            }
            return true
        }
    }

    /// Read, check and write under the row lock (`FOR UPDATE`), so of two concurrent first
    /// sign-ins of different users exactly one binds the instance.
    public func bindRegisteredClient(id: String, subject: String, sessionId: String, at date: Date) async throws -> Bool {
        try await transaction { [self] connection in
            let found = try await connection.query("""
                SELECT data FROM registered_clients WHERE client_id = \(id) FOR UPDATE
                """, logger: self.logger).collect()
            guard let row = found.first else { return false }
            var client = try self.decode(RegisteredClient.self, row.decode(Data.self))
            if let bound = client.boundSubject, bound != subject { return false }
            client.boundSubject = subject
            client.sessionId = sessionId
            client.boundAt = date
            let data = try self.encode(client)
            try await connection.query("""
                UPDATE registered_clients SET data = \(data), bound_subject = \(subject) WHERE client_id = \(id)
                """, logger: self.logger)
            return true
        }
    }

    public func unbindRegisteredClientSession(id: String) async throws {
        try await transaction { [self] connection in
            let found = try await connection.query("""
                SELECT data FROM registered_clients WHERE client_id = \(id) FOR UPDATE
                """, logger: self.logger).collect()
            guard let row = found.first else { return }
            var client = try self.decode(RegisteredClient.self, row.decode(Data.self))
            client.sessionId = nil
            let data = try self.encode(client)
            try await connection.query("UPDATE registered_clients SET data = \(data) WHERE client_id = \(id)", logger: self.logger)
        }
    }

    public func deleteRegisteredClient(id: String) async throws -> Bool {
        try await rows("DELETE FROM registered_clients WHERE client_id = \(id) RETURNING 1").count == 1
    }

    public func purgeUnboundRegisteredClients(registeredBefore date: Date) async throws -> Int {
        try await rows("""
            DELETE FROM registered_clients WHERE bound_subject IS NULL AND created_at < \(date.pg) RETURNING 1
            """).count
    }

    /// Deleting and purging instances removes their rows here too (`ON DELETE CASCADE`).
    public func registeredClientListsWebOrigin(_ origin: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM registered_client_origins WHERE origin = \(origin) LIMIT 1").isEmpty
    }

    /// Rows of `registered_client_origins` for an instance's origins.
    private static func indexWebOrigins(_ origins: [String], of clientId: String, on connection: PostgresConnection,
                                        logger: Logger) async throws {
        for origin in origins {
            try await connection.query("""
                INSERT INTO registered_client_origins (origin, client_id) VALUES (\(origin), \(clientId)) ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }
}
