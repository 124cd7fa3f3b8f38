import Foundation
import IdentityCore
import StoreContracts
import Testing

/// A code exchange is one write: the code is marked used and the family its tokens start is
/// stored together (`redeemCode(hash:at:starting:)`) — and only by the call that redeems it.
@Suite("Store: code redemption with its family")
struct CodeRedemptionStoreTests {
    static let now = StoreConformanceTests.now

    static func code(_ hash: String, session: String) -> AuthorizationCode {
        SignInCompletionStoreTests.code(hash, session: session)
    }

    @Test("the redeeming call stores its family and extends the session; a replay and an unknown code store nothing",
          arguments: StoreBackend.allCases)
    func storesOnce(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let session = StoreConformanceTests.session("s1", expires: 60)
        try await store.insertSession(session)
        try await store.insertCode(Self.code("c1", session: "s1"))

        let family = StoreConformanceTests.family("f1", session: "s1", refresh: "r1")
        #expect(try await store.redeemCode(hash: "c1", at: Self.now, starting: family) == .redeemed(Self.code("c1", session: "s1")))
        #expect(try await store.family(id: "f1") == family)
        #expect(try await store.family(refreshHash: "r1")?.0.id == "f1")
        // As `insertFamily` does: the session lives as long as its new refresh token.
        #expect(try await store.session(id: "s1")?.expiresAt == family.refreshExpiresAt)

        // Used: the second family is not stored, and the first one is named as the code's.
        let replay = StoreConformanceTests.family("f2", session: "s1", refresh: "r2")
        guard case .alreadyUsed(_, let issued) = try await store.redeemCode(hash: "c1", at: Self.now, starting: replay) else {
            Issue.record("a used code must be reported as used")
            return
        }
        #expect(issued == "f1")
        #expect(try await store.family(id: "f2") == nil)
        #expect(try await store.family(refreshHash: "r2") == nil)

        #expect(try await store.redeemCode(hash: "unknown", at: Self.now,
                                           starting: StoreConformanceTests.family("f3", session: "s1", refresh: nil)) == .notFound)
        #expect(try await store.family(id: "f3") == nil)
        try await store.close()
    }

    @Test("20 concurrent redemptions of one code: one family stored, every loser told which",
          arguments: StoreBackend.allCases)
    func concurrent(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertSession(StoreConformanceTests.session("s1"))
        try await store.insertCode(Self.code("c1", session: "s1"))
        let results = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await store.redeemCode(hash: "c1", at: Self.now,
                                               starting: StoreConformanceTests.family("f\(index)", session: "s1", refresh: "r\(index)"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
        let named = Set(results.compactMap { if case .alreadyUsed(_, let family) = $0 { family } else { nil } })
        #expect(named.count == 1)
        var stored: [String] = []
        for index in 0..<20 where try await store.family(id: "f\(index)") != nil { stored.append("f\(index)") }
        #expect(stored.count == 1)
        #expect(named == Set(stored))
        try await store.close()
    }
}
