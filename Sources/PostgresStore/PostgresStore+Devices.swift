import Foundation
import PostgresNIO
import StoreContracts

extension PostgresStore: DeviceAuthorizationStore {
    public func insertDeviceAuthorization(_ device: DeviceAuthorization) async throws -> Bool {
        try await rows("""
            INSERT INTO device_authorizations (device_code_hash, user_code_hash, client_id, client_authenticated, scope, resources,
                state, session_id, subject, poll_interval, polled_at, created_at, expires_at)
            VALUES (\(device.deviceCodeHash), \(device.userCodeHash), \(device.clientId), \(device.clientAuthenticated), \(device.scope),
                \(TokenFamily.encode(device.resources)), \(device.state.rawValue), \(device.sessionId), \(device.subject),
                \(device.interval), \(device.polledAt?.pg), \(device.createdAt.pg), \(device.expiresAt.pg))
            ON CONFLICT DO NOTHING RETURNING 1
            """).count == 1
    }

    public func deviceAuthorization(deviceCodeHash: String) async throws -> DeviceAuthorization? {
        try await device(try await rows("""
            SELECT device_code_hash, user_code_hash, client_id, scope, resources, state, session_id, subject, poll_interval,
                polled_at, created_at, expires_at, client_authenticated FROM device_authorizations WHERE device_code_hash = \(deviceCodeHash)
            """).first)
    }

    public func deviceAuthorization(userCodeHash: String) async throws -> DeviceAuthorization? {
        try await device(try await rows("""
            SELECT device_code_hash, user_code_hash, client_id, scope, resources, state, session_id, subject, poll_interval,
                polled_at, created_at, expires_at, client_authenticated FROM device_authorizations WHERE user_code_hash = \(userCodeHash)
            """).first)
    }

    private func device(_ row: PostgresRow?) throws -> DeviceAuthorization? {
        guard let row else { return nil }
        let (deviceHash, userHash, client, scope) = try row.decode((String, String, String, String).self)
        let columns = row.makeRandomAccess()
        var device = DeviceAuthorization(
            deviceCodeHash: deviceHash, userCodeHash: userHash, clientId: client, scope: scope,
            resources: TokenFamily.decode(try columns[4].decode(String?.self)),
            state: DeviceAuthorization.State(rawValue: try columns[5].decode(String.self)) ?? .denied,
            sessionId: try columns[6].decode(String?.self), subject: try columns[7].decode(String?.self),
            interval: try columns[8].decode(Int.self),
            polledAt: try columns[9].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
            createdAt: Date(timeIntervalSince1970: try columns[10].decode(Double.self)),
            expiresAt: Date(timeIntervalSince1970: try columns[11].decode(Double.self)))
        device.clientAuthenticated = try columns[12].decode(Bool.self)
        return device
    }

    public func settleDeviceAuthorization(deviceCodeHash: String, _ settlement: DeviceSettlement, at now: Date) async throws -> Bool {
        let (state, sessionId, subject) = settlement.columns
        return try await rows("""
            UPDATE device_authorizations SET state = \(state.rawValue), session_id = \(sessionId), subject = \(subject)
            WHERE device_code_hash = \(deviceCodeHash) AND state = 'pending' AND expires_at > \(now.pg) RETURNING 1
            """).count == 1
    }

    public func redeemDeviceAuthorization(deviceCodeHash: String, at now: Date) async throws -> Bool {
        try await rows("""
            UPDATE device_authorizations SET state = 'redeemed'
            WHERE device_code_hash = \(deviceCodeHash) AND state = 'approved' AND expires_at > \(now.pg) RETURNING 1
            """).count == 1
    }

    public func noteDevicePoll(deviceCodeHash: String, at now: Date, interval: Int) async throws {
        _ = try await rows("""
            UPDATE device_authorizations SET polled_at = \(now.pg), poll_interval = \(interval)
            WHERE device_code_hash = \(deviceCodeHash)
            """)
    }
}
