import Foundation
import GRDB
import StoreContracts

/// Permission requests (migration v19): the record as JSON, with the columns they are found by.
extension SQLiteStore: PermissionStore {
    public func insertPermission(_ permission: PermissionRequest) async throws -> Bool {
        let data = try JSONEncoder().encode(permission)
        return try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO permissions (id, uri_hash, client_id, external_reference, subject, status, expires_at, data)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """).execute(arguments: [permission.id, permission.uriHash, permission.clientId, permission.externalReference,
                                         permission.subject, permission.status.rawValue, permission.expiresAt.sql, data])
            return db.changesCount == 1
        }
    }

    public func permission(id: String) async throws -> PermissionRequest? {
        try await permission(where: "id = ?", [id])
    }

    public func permission(uriHash: String) async throws -> PermissionRequest? {
        try await permission(where: "uri_hash = ?", [uriHash])
    }

    public func permission(clientId: String, externalReference: String) async throws -> PermissionRequest? {
        try await permission(where: "client_id = ? AND external_reference = ?", [clientId, externalReference])
    }

    public func settlePermission(_ permission: PermissionRequest, from: PermissionRequest.Status) async throws -> Bool {
        let data = try JSONEncoder().encode(permission)
        return try await write { db in
            try db.cachedStatement(sql: "UPDATE permissions SET status = ?, subject = ?, data = ? WHERE id = ? AND status = ?")
                .execute(arguments: [permission.status.rawValue, permission.subject, data, permission.id, from.rawValue])
            return db.changesCount == 1
        }
    }

    public func grantedPermissions(subject: String, clientIds: [String]) async throws -> [PermissionRequest] {
        try await pool.read { db in
            try Data.fetchAll(db.cachedStatement(sql: "SELECT data FROM permissions WHERE subject = ? AND status = 'granted'"),
                              arguments: [subject])
                .map { try JSONDecoder().decode(PermissionRequest.self, from: $0) }
                .filter { clientIds.contains($0.clientId) }
        }
    }

    private func permission(where condition: String, _ arguments: StatementArguments) async throws -> PermissionRequest? {
        try await pool.read { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM permissions WHERE \(condition)"), arguments: arguments)
                .map { try JSONDecoder().decode(PermissionRequest.self, from: $0) }
        }
    }
}
