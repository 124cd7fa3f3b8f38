import Foundation
import StoreContracts
import Testing

extension StoreConformance {
    static func deviceAuthorizations(_ roles: StoreRoles) async throws {
        let (devices, now) = (roles.devices, StoreFixtures.now)
        let first = StoreFixtures.device("d1", userCode: "u1")
        #expect(try await devices.insertDeviceAuthorization(first))
        #expect(try await devices.deviceAuthorization(deviceCodeHash: "d1") == first)
        #expect(try await devices.deviceAuthorization(userCodeHash: "u1") == first)
        #expect(try await devices.deviceAuthorization(userCodeHash: "nope") == nil)
        // A user code already taken stores nothing: the caller draws another.
        #expect(try await !devices.insertDeviceAuthorization(StoreFixtures.device("d2", userCode: "u1")))
        #expect(try await devices.deviceAuthorization(deviceCodeHash: "d2") == nil)

        // Nothing to redeem before the user approved; of 10 racing settlements exactly one wins.
        #expect(try await !devices.redeemDeviceAuthorization(deviceCodeHash: "d1", at: now))
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                group.addTask {
                    try await devices.settleDeviceAuthorization(
                        deviceCodeHash: "d1", index % 2 == 0 ? .approved(sessionId: "s\(index)", subject: "sub") : .denied, at: now)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        let settled = try #require(try await devices.deviceAuthorization(deviceCodeHash: "d1"))
        #expect(settled.state == .approved ? settled.sessionId != nil && settled.subject == "sub"
                                           : settled.state == .denied && settled.sessionId == nil)

        // An approved one is redeemed by exactly one of 10 racing polls.
        #expect(try await devices.insertDeviceAuthorization(StoreFixtures.device("d3", userCode: "u3")))
        #expect(try await devices.settleDeviceAuthorization(deviceCodeHash: "d3", .approved(sessionId: "s", subject: "sub"), at: now))
        #expect(try await !devices.settleDeviceAuthorization(deviceCodeHash: "d3", .denied, at: now))
        let redemptions = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { try await devices.redeemDeviceAuthorization(deviceCodeHash: "d3", at: now) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(redemptions == 1)
        #expect(try await devices.deviceAuthorization(deviceCodeHash: "d3")?.state == .redeemed)

        // Polls are noted with the interval the device must keep.
        try await devices.noteDevicePoll(deviceCodeHash: "d3", at: now.addingTimeInterval(7), interval: 10)
        let polled = try #require(try await devices.deviceAuthorization(deviceCodeHash: "d3"))
        #expect(polled.interval == 10 && polled.polledAt == now.addingTimeInterval(7))

        // Expired: neither settled nor redeemed; kept a day past expiry, then purged.
        #expect(try await devices.insertDeviceAuthorization(StoreFixtures.device("d4", userCode: "u4", expiresIn: 10)))
        #expect(try await !devices.settleDeviceAuthorization(deviceCodeHash: "d4", .denied, at: now.addingTimeInterval(11)))
        #expect(try await devices.settleDeviceAuthorization(deviceCodeHash: "d4", .approved(sessionId: "s", subject: "x"), at: now))
        #expect(try await !devices.redeemDeviceAuthorization(deviceCodeHash: "d4", at: now.addingTimeInterval(11)))
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(3600))
        #expect(try await devices.deviceAuthorization(deviceCodeHash: "d4") != nil)
        _ = try await roles.maintenance.purgeExpired(before: now.addingTimeInterval(86_400 + 200))
        #expect(try await devices.deviceAuthorization(deviceCodeHash: "d4") == nil)
        #expect(try await devices.deviceAuthorization(userCodeHash: "u4") == nil)
    }
}
