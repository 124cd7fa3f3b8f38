import Foundation
import IdentityCore
import StoreContracts
import Testing

/// One-time grants (the app-to-web `css` value) in every backend (part of the shared store suite).
extension StoreConformanceTests {
    @Test("one-time grants: inserted once, taken exactly once, even by 20 concurrent takers; expired ones are purged", arguments: StoreBackend.allCases)
    func oneTimeGrants(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let payload = Data("sealed-payload".utf8)
        try await store.insertOneTimeGrant(hash: "h1", sealed: payload, expiresAt: Self.now.addingTimeInterval(300))
        let taken = try await store.takeOneTimeGrant(hash: "h1")
        #expect(taken?.sealed == payload)
        #expect(taken?.expiresAt.timeIntervalSince1970 == Self.now.addingTimeInterval(300).timeIntervalSince1970)
        #expect(try await store.takeOneTimeGrant(hash: "h1") == nil)
        #expect(try await store.takeOneTimeGrant(hash: "unknown") == nil)

        try await store.insertOneTimeGrant(hash: "race", sealed: payload, expiresAt: Self.now.addingTimeInterval(300))
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { try await store.takeOneTimeGrant(hash: "race") != nil } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)

        try await store.insertOneTimeGrant(hash: "old", sealed: payload, expiresAt: Self.now.addingTimeInterval(10))
        try await store.insertOneTimeGrant(hash: "young", sealed: payload, expiresAt: Self.now.addingTimeInterval(600))
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(60))
        #expect(try await store.takeOneTimeGrant(hash: "old") == nil)
        #expect(try await store.takeOneTimeGrant(hash: "young") != nil)
        // Replay caches: the first insert of a hash wins, later ones report it was there.
        #expect(try await store.insertOneTimeGrantIfAbsent(hash: "seen", sealed: Data(), expiresAt: Self.now.addingTimeInterval(300)))
        #expect(try await !store.insertOneTimeGrantIfAbsent(hash: "seen", sealed: Data(), expiresAt: Self.now.addingTimeInterval(300)))
        try await store.close()
    }
}
