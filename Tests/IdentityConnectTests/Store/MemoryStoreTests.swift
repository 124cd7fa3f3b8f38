import Foundation
import StoreContracts
import StoreTesting
import Testing

/// What only `MemoryStore` has (its rules are the conformance suite's): one object in every role,
/// and a close that ends it.
@Suite("Memory store")
struct MemoryStoreTests {
    @Test("every role is the same store: a write through one role is read through another")
    func oneStore() async throws {
        let roles = MemoryStore.open()
        try await roles.sessions.insertSession(StoreFixtures.session("s1"))
        try await roles.families.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        #expect(try await roles.accessTokens.accessContext(familyId: "f1", jti: "j1")?.session.id == "s1")
        #expect(try await roles.sealed.sealedValues(.sessionUpstream, after: nil, limit: 10).map(\.id) == ["s1"])
    }

    @Test("once closed, every call is refused and nothing more is stored")
    func closed() async throws {
        let store = MemoryStore()
        try await store.insertSession(StoreFixtures.session("s1"))
        try await store.close()
        await #expect(throws: MemoryStore.Closed.self) { try await store.ping() }
        await #expect(throws: MemoryStore.Closed.self) { try await store.session(id: "s1") }
        await #expect(throws: MemoryStore.Closed.self) { try await store.insertSession(StoreFixtures.session("s2")) }
        await #expect(throws: MemoryStore.Closed.self) { try await store.throttleReserve([StoreFixtures.rule("k", limit: 1)], at: .now) }
    }

    @Test("a taken key is named in the refusal")
    func constraint() async throws {
        let store = MemoryStore()
        try await store.insertSession(StoreFixtures.session("s1"))
        let error = await #expect(throws: MemoryStore.ConstraintViolation.self) { try await store.insertSession(StoreFixtures.session("s1")) }
        #expect(error?.description == "sessions: s1 is taken")
    }
}
