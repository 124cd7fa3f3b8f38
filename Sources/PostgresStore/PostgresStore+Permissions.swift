import Foundation
import PostgresNIO
import StoreContracts

/// Permission requests (migration v17): the record as JSON, with the columns they are found by.
extension PostgresStore: PermissionStore {
    public func insertPermission(_ permission: PermissionRequest) async throws -> Bool {
        let data = try JSONEncoder().encode(permission)
        return try await rows("""
            INSERT INTO permissions (id, uri_hash, client_id, external_reference, subject, status, expires_at, data)
            VALUES (\(permission.id), \(permission.uriHash), \(permission.clientId), \(permission.externalReference),
                    \(permission.subject), \(permission.status.rawValue), \(permission.expiresAt.pg), \(data))
            ON CONFLICT DO NOTHING RETURNING 1
            """).count == 1
    }

    public func permission(id: String) async throws -> PermissionRequest? {
        try await rows("SELECT data FROM permissions WHERE id = \(id)").first.map(Self.permission)
    }

    public func permission(uriHash: String) async throws -> PermissionRequest? {
        try await rows("SELECT data FROM permissions WHERE uri_hash = \(uriHash)").first.map(Self.permission)
    }

    public func permission(clientId: String, externalReference: String) async throws -> PermissionRequest? {
        try await rows("SELECT data FROM permissions WHERE client_id = \(clientId) AND external_reference = \(externalReference)")
            .first.map(Self.permission)
    }

    public func settlePermission(_ permission: PermissionRequest, from: PermissionRequest.Status) async throws -> Bool {
        let data = try JSONEncoder().encode(permission)
        return try await rows("""
            UPDATE permissions SET status = \(permission.status.rawValue), subject = \(permission.subject), data = \(data)
            WHERE id = \(permission.id) AND status = \(from.rawValue) RETURNING 1
            """).count == 1
    }

    public func grantedPermissions(subject: String, clientIds: [String]) async throws -> [PermissionRequest] {
        try await rows("""
            SELECT data FROM permissions WHERE subject = \(subject) AND status = 'granted' AND client_id = ANY(\(clientIds))
            """).map(Self.permission)
    }

    private static func permission(_ row: PostgresRow) throws -> PermissionRequest {
        try JSONDecoder().decode(PermissionRequest.self, from: try row.decode(Data.self))
    }
}
