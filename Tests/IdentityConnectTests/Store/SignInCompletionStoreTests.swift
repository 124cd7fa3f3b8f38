import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Finishing a sign-in is one write: the pending authorization goes, the session and its first
/// code arrive — all of it or none of it, and only once per pending authorization.
@Suite("Store: sign-in completion")
struct SignInCompletionStoreTests {
    static let now = StoreConformanceTests.now

    static func pending() -> PendingAuthorization {
        PendingAuthorization(clientId: "kid", appKey: "kid", authServiceId: "svc", redirectURI: "https://a/cb",
                             scope: "openid", state: "s", nonce: nil, codeChallenge: "c", mode: .api,
                             browserHash: nil, createdAt: now, expiresAt: now.addingTimeInterval(60))
    }

    static func code(_ hash: String, session: String) -> AuthorizationCode {
        AuthorizationCode(hash: hash, clientId: "kid", redirectURI: "https://a/cb", scope: "openid", nonce: nil,
                          codeChallenge: "c", sessionId: session, createdAt: now, expiresAt: now.addingTimeInterval(60))
    }

    @Test("consumes the pending authorization and stores session and code; a second completion stores nothing",
          arguments: StoreBackend.allCases)
    func once(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertPending(Self.pending(), idHash: "p1")
        let session = StoreConformanceTests.session("s1")
        #expect(try await store.completeSignIn(session: session, code: Self.code("c1", session: "s1"), consumingPending: "p1"))
        #expect(try await store.pending(idHash: "p1") == nil)
        #expect(try await store.session(id: "s1") == session)
        #expect(try await store.redeemCode(hash: "c1", at: Self.now, familyId: "f1") == .redeemed(Self.code("c1", session: "s1")))

        // The pending authorization is gone: nothing of the second completion may be stored.
        #expect(try await !store.completeSignIn(session: StoreConformanceTests.session("s2"), code: Self.code("c2", session: "s2"),
                                                consumingPending: "p1"))
        #expect(try await store.session(id: "s2") == nil)
        #expect(try await store.redeemCode(hash: "c2", at: Self.now, familyId: "f2") == .notFound)

        // Already consumed elsewhere (an upstream callback): session and code only.
        #expect(try await store.completeSignIn(session: StoreConformanceTests.session("s3"), code: Self.code("c3", session: "s3"),
                                               consumingPending: nil))
        #expect(try await store.session(id: "s3")?.id == "s3")
        #expect(try await store.redeemCode(hash: "c3", at: Self.now, familyId: "f3") == .redeemed(Self.code("c3", session: "s3")))
        try await store.close()
    }

    @Test("a failing insert leaves the pending authorization in place", arguments: StoreBackend.allCases)
    func atomic(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertPending(Self.pending(), idHash: "p1")
        try await store.insertCode(Self.code("taken", session: "other"))
        // The code hash collides: the whole completion fails, so the person can try again.
        await #expect(throws: (any Error).self) {
            try await store.completeSignIn(session: StoreConformanceTests.session("s1"), code: Self.code("taken", session: "s1"),
                                           consumingPending: "p1")
        }
        #expect(try await store.pending(idHash: "p1") != nil)
        #expect(try await store.session(id: "s1") == nil)
        try await store.close()
    }

    @Test("20 concurrent completions of one sign-in: exactly one stores its session", arguments: StoreBackend.allCases)
    func race(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertPending(Self.pending(), idHash: "p1")
        let winners: [String] = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await store.completeSignIn(session: StoreConformanceTests.session("s\(index)"),
                                                   code: Self.code("c\(index)", session: "s\(index)"),
                                                   consumingPending: "p1") ? "s\(index)" : nil
                }
            }
            return try await group.reduce(into: []) { if let id = $1 { $0.append(id) } }
        }
        #expect(winners.count == 1)
        for index in 0..<20 {
            let stored = try await store.session(id: "s\(index)") != nil
            #expect(stored == winners.contains("s\(index)"))
        }
        try await store.close()
    }
}
