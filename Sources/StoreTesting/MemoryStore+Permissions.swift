import Foundation
import StoreContracts

extension MemoryStore: PermissionStore {
    public func insertPermission(_ permission: PermissionRequest) async throws -> Bool {
        try transaction { tables in
            let taken = tables.permissions.values.contains { other in
                other.id == permission.id || other.uriHash == permission.uriHash
                    || (permission.externalReference != nil && other.clientId == permission.clientId
                        && other.externalReference == permission.externalReference)
            }
            if taken { return false }
            tables.permissions[permission.id] = permission
            return true
        }
    }

    public func permission(id: String) async throws -> PermissionRequest? {
        try read { $0.permissions[id] }
    }

    public func permission(uriHash: String) async throws -> PermissionRequest? {
        try read { $0.permissions.values.first { $0.uriHash == uriHash } }
    }

    public func permission(clientId: String, externalReference: String) async throws -> PermissionRequest? {
        try read { $0.permissions.values.first { $0.clientId == clientId && $0.externalReference == externalReference } }
    }

    public func settlePermission(_ permission: PermissionRequest, from: PermissionRequest.Status) async throws -> Bool {
        try transaction { tables in
            guard tables.permissions[permission.id]?.status == from else { return false }
            tables.permissions[permission.id] = permission
            return true
        }
    }

    public func grantedPermissions(subject: String, clientIds: [String]) async throws -> [PermissionRequest] {
        try read { tables in
            tables.permissions.values.filter { $0.subject == subject && $0.status == .granted && clientIds.contains($0.clientId) }
                .sorted { $0.id < $1.id }
        }
    }
}
