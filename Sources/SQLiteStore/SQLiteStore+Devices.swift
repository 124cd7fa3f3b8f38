import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: DeviceAuthorizationStore {
    public func insertDeviceAuthorization(_ device: DeviceAuthorization) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO device_authorizations (device_code_hash, user_code_hash, client_id, client_authenticated, scope, resources,
                    state, session_id, subject, poll_interval, polled_at, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """).execute(arguments: [device.deviceCodeHash, device.userCodeHash, device.clientId, device.clientAuthenticated, device.scope,
                                 TokenFamily.encode(device.resources), device.state.rawValue, device.sessionId, device.subject,
                                 device.interval, device.polledAt?.sql, device.createdAt.sql, device.expiresAt.sql])
            return db.changesCount == 1
        }
    }

    public func deviceAuthorization(deviceCodeHash: String) async throws -> DeviceAuthorization? {
        try await device(where: "device_code_hash", is: deviceCodeHash)
    }

    public func deviceAuthorization(userCodeHash: String) async throws -> DeviceAuthorization? {
        try await device(where: "user_code_hash", is: userCodeHash)
    }

    private func device(where column: String, is value: String) async throws -> DeviceAuthorization? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM device_authorizations WHERE \(column) = ?"),
                             arguments: [value]).map { row in
                DeviceAuthorization(
                    deviceCodeHash: row["device_code_hash"], userCodeHash: row["user_code_hash"], clientId: row["client_id"],
                    clientAuthenticated: row["client_authenticated"], scope: row["scope"], resources: TokenFamily.decode(row["resources"]),
                    state: DeviceAuthorization.State(rawValue: row["state"]) ?? .denied, sessionId: row["session_id"],
                    subject: row["subject"], interval: row["poll_interval"],
                    polledAt: (row["polled_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            }
        }
    }

    public func settleDeviceAuthorization(deviceCodeHash: String, _ settlement: DeviceSettlement, at now: Date) async throws -> Bool {
        let (state, sessionId, subject) = settlement.columns
        return try await write { db in
            try db.cachedStatement(sql: """
                UPDATE device_authorizations SET state = ?, session_id = ?, subject = ?
                WHERE device_code_hash = ? AND state = 'pending' AND expires_at > ?
                """).execute(arguments: [state.rawValue, sessionId, subject, deviceCodeHash, now.sql])
            return db.changesCount == 1
        }
    }

    public func redeemDeviceAuthorization(deviceCodeHash: String, at now: Date) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: """
                UPDATE device_authorizations SET state = 'redeemed'
                WHERE device_code_hash = ? AND state = 'approved' AND expires_at > ?
                """).execute(arguments: [deviceCodeHash, now.sql])
            return db.changesCount == 1
        }
    }

    public func noteDevicePoll(deviceCodeHash: String, at now: Date, interval: Int) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE device_authorizations SET polled_at = ?, poll_interval = ? WHERE device_code_hash = ?")
                .execute(arguments: [now.sql, interval, deviceCodeHash])
        }
    }
}
