import Foundation
import StoreContracts
import StoreTesting
import Testing

/// `AppRevocation` on `MemoryStore`: revoking one app's grants ends a session only once nothing in
/// it is live, and a code replayed before its family exists ends the whole session.
@Suite("App revocation")
struct AppRevocationTests {
    static let now = StoreFixtures.now

    /// A store with session `s1` holding families `f1` (client `kid`) and `f2` (client `app`), both
    /// with refresh tokens, and session `s2` holding `f3` (client `app`).
    static func store() async throws -> MemoryStore {
        let store = MemoryStore()
        try await store.insertSession(StoreFixtures.session("s1"))
        try await store.insertSession(StoreFixtures.session("s2"))
        for (id, session, client) in [("f1", "s1", "kid"), ("f2", "s1", "app"), ("f3", "s2", "app")] {
            var family = StoreFixtures.family(id, session: session, refresh: "r-\(id)")
            family.clientId = client
            try await store.insertFamily(family)
        }
        return store
    }

    @Test("one app's family: the session ends with the last live family, not before")
    func oneFamily() async throws {
        let store = try await Self.store()
        let revocation = AppRevocation(families: store, sessions: store, accessTokenWindow: 3600)
        #expect(try await !revocation.revokeFamily("f1", sessionId: "s1", at: Self.now))
        #expect(try await store.family(id: "f1")?.revokedAt == Self.now)
        #expect(try await store.session(id: "s1")?.revokedAt == nil)
        #expect(try await revocation.revokeFamily("f2", sessionId: "s1", at: Self.now))
        #expect(try await store.session(id: "s1")?.revokedAt == Self.now)
    }

    @Test("a code replayed before its first redemption stored the family ends the whole session")
    func replayWhileMinting() async throws {
        let store = try await Self.store()
        #expect(try await AppRevocation(families: store, sessions: store, accessTokenWindow: 3600).revokeFamily("minting", sessionId: "s1", at: Self.now))
        #expect(try await store.session(id: "s1")?.revokedAt == Self.now)
        #expect(try await store.family(id: "f1")?.revokedAt == Self.now)
        #expect(try await store.family(id: "f2")?.revokedAt == Self.now)
        #expect(try await store.session(id: "s2")?.revokedAt == nil)
    }

    @Test("an app instance's families everywhere: the sessions left without a live family end, the others stay")
    func instance() async throws {
        let store = try await Self.store()
        #expect(try await AppRevocation(families: store, sessions: store, accessTokenWindow: 3600).revokeFamilies(ofClient: "app", at: Self.now) == ["s2"])
        #expect(try await store.family(id: "f2")?.revokedAt == Self.now)
        #expect(try await store.session(id: "s1")?.revokedAt == nil, "f1 is still live there")
        #expect(try await store.session(id: "s2")?.revokedAt == Self.now)
    }
}
