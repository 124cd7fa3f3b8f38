import Foundation
import StoreContracts
import Testing

/// QR sign-ins on every backend: stored under the code's hash, settled exactly once.
@Suite("Store conformance: QR sign-ins")
struct QRLoginStoreTests {
    static let now = StoreConformanceTests.now

    static func login(_ hash: String, expiresIn: TimeInterval = 120) -> QRLogin {
        QRLogin(codeHash: hash, pendingIdHash: "p-\(hash)", browserHash: "b", clientId: "kid", appKey: "kid",
                authServiceId: "svc", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0", acceptLanguage: "de-CH",
                clientAddress: "2001:db8::1", createdAt: now, expiresAt: now.addingTimeInterval(expiresIn))
    }

    @Test("round trip; of 10 concurrent settlements one wins; expired ones cannot be settled; purged a day after expiry",
          arguments: StoreBackend.allCases)
    func lifecycle(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertQRLogin(Self.login("q1"))
        #expect(try await store.qrLogin(codeHash: "q1") == Self.login("q1"))
        #expect(try await store.qrLogin(codeHash: "nope") == nil)

        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                group.addTask {
                    try await store.settleQRLogin(codeHash: "q1", index % 2 == 0 ? .confirmed(sessionId: "s\(index)", subject: "sub")
                                                                                 : .refused(cause: "mistake"), at: Self.now)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        let settled = try #require(try await store.qrLogin(codeHash: "q1"))
        #expect(settled.state != .pending)
        #expect(settled.state == .confirmed ? settled.sessionId != nil && settled.refusal == nil : settled.refusal == "mistake")

        try await store.insertQRLogin(Self.login("q2", expiresIn: 10))
        #expect(try await !store.settleQRLogin(codeHash: "q2", .refused(cause: "unauthorized"), at: Self.now.addingTimeInterval(11)))
        #expect(try await store.qrLogin(codeHash: "q2")?.state == .pending)

        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(3600))
        #expect(try await store.qrLogin(codeHash: "q2") != nil)
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(86_400 + 200))
        #expect(try await store.qrLogin(codeHash: "q2") == nil)
        try await store.close()
    }
}
