import Foundation
import StoreContracts

extension MemoryStore: DeviceAuthorizationStore {
    /// As the SQL backends' unique index on the user code's hash: a taken one stores nothing.
    public func insertDeviceAuthorization(_ device: DeviceAuthorization) async throws -> Bool {
        try transaction { tables in
            guard tables.devices[device.deviceCodeHash] == nil,
                  !tables.devices.values.contains(where: { $0.userCodeHash == device.userCodeHash }) else { return false }
            tables.devices[device.deviceCodeHash] = device
            return true
        }
    }

    public func deviceAuthorization(deviceCodeHash: String) async throws -> DeviceAuthorization? {
        try read { $0.devices[deviceCodeHash] }
    }

    public func deviceAuthorization(userCodeHash: String) async throws -> DeviceAuthorization? {
        try read { tables in tables.devices.values.first { $0.userCodeHash == userCodeHash } }
    }

    /// Only a pending authorization that has not expired at `now` is settled.
    public func settleDeviceAuthorization(deviceCodeHash: String, _ settlement: DeviceSettlement, at now: Date) async throws -> Bool {
        try transaction { tables in
            guard var device = tables.devices[deviceCodeHash], device.state == .pending, device.expiresAt > now else { return false }
            (device.state, device.sessionId, device.subject) = settlement.columns
            tables.devices[deviceCodeHash] = device
            return true
        }
    }

    public func redeemDeviceAuthorization(deviceCodeHash: String, at now: Date) async throws -> Bool {
        try transaction { tables in
            guard var device = tables.devices[deviceCodeHash], device.state == .approved, device.expiresAt > now else { return false }
            device.state = .redeemed
            tables.devices[deviceCodeHash] = device
            return true
        }
    }

    public func noteDevicePoll(deviceCodeHash: String, at now: Date, interval: Int) async throws {
        try transaction { tables in
            tables.devices[deviceCodeHash]?.polledAt = now
            tables.devices[deviceCodeHash]?.interval = interval
        }
    }
}
