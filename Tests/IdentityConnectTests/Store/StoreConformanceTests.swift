import Foundation
import IdentityCore
import JOSE
import SQLiteStore
import StoreContracts
import PostgresStore
import Testing

/// Backends the store suite runs against. PostgreSQL joins when `IDCONNECT_POSTGRES_URL` is set
/// (each test then gets a database of its own); otherwise "PostgreSQL store suite" says why not.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var allCases: [StoreBackend] { PostgresTestDatabase.serverURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    func open() async throws -> any BrokerStore {
        switch self {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("idc-store-\(UUID().uuidString)/s.sqlite").path
            return try SQLiteStore(path: path)
        case .postgres:
            return try await PostgresStore.open(url: PostgresTestDatabase.create())
        }
    }
}

/// Says, in the test report, whether the PostgreSQL backend ran the store suite.
@Suite("PostgreSQL store suite")
struct PostgresStoreSuiteGate {
    @Test("the store suite includes PostgreSQL", .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func included() {
        #expect(StoreBackend.allCases.contains(.postgres))
    }
}

/// One storage suite, written once; every backend runs all of it
/// (docs/architecture.md, "Where to add").
@Suite("Store conformance")
struct StoreConformanceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func session(_ id: String, expires: TimeInterval = 3600) -> LoginSession {
        LoginSession(id: id, subject: "sub-\(id)", userId: "alice", appKey: "kid", authServiceId: "svc",
                     attributes: ["email": .string("a@example.org"), "groups": .array([.string("g")])],
                     sealedUpstream: Data([1, 2, 3]), upstreamExpiresAt: now.addingTimeInterval(60),
                     authTime: now, createdAt: now, expiresAt: now.addingTimeInterval(expires))
    }

    static func family(_ id: String, session: String, refresh: String?) -> TokenFamily {
        TokenFamily(id: id, sessionId: session, clientId: "kid", scope: "openid", nonce: "n", createdAt: now,
                    refreshHash: refresh, refreshExpiresAt: refresh.map { _ in now.addingTimeInterval(7200) })
    }

    @Test("pending authorizations: insert, read, update, consume exactly once", arguments: StoreBackend.allCases)
    func pending(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let pending = PendingAuthorization(clientId: "kid", appKey: "kid", authServiceId: "svc", redirectURI: "https://a/cb",
                                           scope: "openid", state: "s", nonce: nil, codeChallenge: "c", mode: .browser,
                                           browserHash: "h", createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(60))
        try await store.insertPending(pending, idHash: "p1")
        #expect(try await store.pending(idHash: "p1") == pending)
        var updated = pending
        updated.failedAttempts = 2
        updated.lastError = "wrong"
        try await store.updatePending(updated, idHash: "p1")
        #expect(try await store.pending(idHash: "p1")?.lastError == "wrong")
        #expect(try await store.consumePending(idHash: "p1"))
        #expect(try await !store.consumePending(idHash: "p1"))
        #expect(try await store.pending(idHash: "p1") == nil)
        try await store.close()
    }

    @Test("codes: 50 concurrent redemptions → exactly one winner; losers learn its family", arguments: StoreBackend.allCases)
    func codes(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let code = AuthorizationCode(hash: "c1", clientId: "kid", redirectURI: "https://a/cb", scope: "", nonce: nil,
                                     codeChallenge: nil, sessionId: "s1", createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(60))
        try await store.insertCode(code)
        let results = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
            for index in 0..<50 { group.addTask { try await store.redeemCode(hash: "c1", at: Self.now, familyId: "f\(index)") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = results.compactMap { if case .redeemed(let c) = $0 { c } else { nil } }
        #expect(winners == [code])
        let families = Set(results.compactMap { if case .alreadyUsed(_, let f) = $0 { f } else { nil } })
        #expect(families.count == 1)
        #expect(try await store.redeemCode(hash: "nope", at: Self.now, familyId: "x") == .notFound)
        try await store.close()
    }

    @Test("sessions: round trip, compare-and-swap upstream update, revoke ends its families", arguments: StoreBackend.allCases)
    func sessions(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let session = Self.session("s1")
        try await store.insertSession(session)
        #expect(try await store.session(id: "s1") == session)
        #expect(try await store.updateUpstream(sessionId: "s1", sealedUpstream: Data([9]), upstreamExpiresAt: nil,
                                               attributes: ["email": .string("b@example.org")], expectedVersion: 0))
        #expect(try await !store.updateUpstream(sessionId: "s1", sealedUpstream: Data([8]), upstreamExpiresAt: nil,
                                                attributes: nil, expectedVersion: 0))
        let updated = try #require(try await store.session(id: "s1"))
        #expect(updated.version == 1 && updated.sealedUpstream == Data([9]) && updated.attributes["email"] == .string("b@example.org"))
        try await store.insertFamily(Self.family("f1", session: "s1", refresh: "r1"))
        try await store.revokeSession(id: "s1", at: Self.now)
        #expect(try await store.session(id: "s1")?.revokedAt == Self.now)
        #expect(try await store.family(id: "f1")?.revokedAt == Self.now)
        #expect(try await store.session(id: "missing") == nil)
        try await store.close()
    }

    @Test("families: rotation is compare-and-swap, the previous hash still finds the family", arguments: StoreBackend.allCases)
    func families(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertSession(Self.session("s1"))
        try await store.insertFamily(Self.family("f1", session: "s1", refresh: "r1"))
        #expect(try await store.family(refreshHash: "r1")?.0.id == "f1")
        #expect(try await store.family(refreshHash: "r1")?.1 == .current)
        let rotated = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await store.rotateRefresh(familyId: "f1", from: "r1", to: "r2-\(index)", expiresAt: Self.now.addingTimeInterval(9000),
                                                  graceResponse: Data([7]), at: Self.now)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rotated.filter { $0 }.count == 1)
        let family = try #require(try await store.family(id: "f1"))
        #expect(family.previousRefreshHash == "r1" && family.graceResponse == Data([7]) && family.rotatedAt == Self.now)
        #expect(try await store.family(refreshHash: "r1")?.1 == .previous)
        #expect(try await store.family(refreshHash: family.refreshHash!)?.1 == .current)
        // A second rotation retires r1 for good.
        #expect(try await store.rotateRefresh(familyId: "f1", from: family.refreshHash!, to: "r9", expiresAt: Self.now.addingTimeInterval(9000),
                                              graceResponse: nil, at: Self.now))
        #expect(try await store.family(refreshHash: "r1")?.1 == .retired)
        #expect(try await store.family(refreshHash: family.refreshHash!)?.1 == .previous)
        let family2 = try #require(try await store.family(id: "f1"))
        // Rotation extends the session to the new refresh expiry.
        #expect(try await store.session(id: "s1")?.expiresAt == Self.now.addingTimeInterval(9000))
        try await store.revokeFamily(id: "f1", at: Self.now)
        #expect(try await !store.rotateRefresh(familyId: "f1", from: family2.refreshHash!, to: "r3", expiresAt: Self.now,
                                               graceResponse: nil, at: Self.now))
        try await store.close()
    }

    @Test("per-app revocation: a session ends only when its last family is revoked; an instance's families everywhere",
          arguments: StoreBackend.allCases)
    func familyScopedRevocation(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let window = Self.now.addingTimeInterval(-3600)
        try await store.insertSession(Self.session("s1"))
        try await store.insertSession(Self.session("s2"))
        try await store.insertFamily(Self.family("f1", session: "s1", refresh: "r1"))
        var other = Self.family("f2", session: "s1", refresh: "r2")
        other.clientId = "dyn~CSI~x"
        try await store.insertFamily(other)
        other.id = "f3"; other.sessionId = "s2"; other.refreshHash = "r3"
        try await store.insertFamily(other)
        #expect(try await store.revokeFamily(id: "f1", at: Self.now))
        #expect(try await !store.revokeFamily(id: "not-yet-inserted", at: Self.now))
        #expect(try await !store.endSessionIfUnused(id: "s1", at: Self.now, issuedAfter: window))
        #expect(try await store.session(id: "s1")?.revokedAt == nil)
        #expect(try await store.revokeFamilies(clientId: "dyn~CSI~x", at: Self.now).sorted() == ["s1", "s2"])
        #expect(try await store.family(id: "f3")?.revokedAt == Self.now)
        #expect(try await store.revokeFamilies(clientId: "dyn~CSI~x", at: Self.now).isEmpty)
        #expect(try await store.endSessionIfUnused(id: "s1", at: Self.now, issuedAfter: window))
        let ended = try #require(try await store.session(id: "s1"))
        #expect(ended.revokedAt == Self.now && ended.sealedUpstream == nil)
        #expect(try await !store.endSessionIfUnused(id: "s1", at: Self.now.addingTimeInterval(5), issuedAfter: window))
        #expect(try await store.session(id: "s1")?.revokedAt == Self.now)

        // A family without a refresh token keeps the session while its access token may be valid.
        try await store.insertSession(Self.session("s3"))
        try await store.insertFamily(Self.family("f4", session: "s3", refresh: nil))
        #expect(try await !store.endSessionIfUnused(id: "s3", at: Self.now, issuedAfter: window))
        #expect(try await store.endSessionIfUnused(id: "s3", at: Self.now, issuedAfter: Self.now.addingTimeInterval(1)))
        // A family whose refresh token expired and whose last issuance is old does not.
        try await store.insertSession(Self.session("s4"))
        try await store.insertFamily(Self.family("f5", session: "s4", refresh: "r5"))
        let later = Self.now.addingTimeInterval(7201)
        #expect(try await store.endSessionIfUnused(id: "s4", at: later, issuedAfter: later.addingTimeInterval(-3600)))
        // A replayed code whose first redemption has not stored its family yet ends the whole session.
        try await store.insertSession(Self.session("s5"))
        try await store.insertFamily(Self.family("f6", session: "s5", refresh: "r6"))
        #expect(try await AppRevocation(families: store, sessions: store, accessTokenWindow: 3600).revokeFamily("minting", sessionId: "s5", at: Self.now))
        #expect(try await store.session(id: "s5")?.revokedAt == Self.now)
        #expect(try await store.family(id: "f6")?.revokedAt == Self.now)
        try await store.close()
    }

    @Test("opaque tokens, single-token revocation and signing keys", arguments: StoreBackend.allCases)
    func tokensAndKeys(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let token = OpaqueAccessToken(hash: "t1", jti: "j1", familyId: "f1", clientId: "kid", scope: "", issuedAt: Self.now,
                                      expiresAt: Self.now.addingTimeInterval(60))
        try await store.insertOpaqueToken(token)
        #expect(try await store.opaqueToken(hash: "t1") == token)
        #expect(try await !store.isAccessTokenRevoked(jti: "j1"))
        try await store.revokeAccessToken(jti: "j1", expiresAt: Self.now.addingTimeInterval(60))
        try await store.revokeAccessToken(jti: "j1", expiresAt: Self.now.addingTimeInterval(60))
        #expect(try await store.isAccessTokenRevoked(jti: "j1"))
        let key = StoredSigningKey(kid: "k1", algorithm: "RS256", sealedPrivateKey: Data([1]), createdAt: Self.now)
        try await store.insertSigningKey(key)
        #expect(try await store.signingKeys() == [key])
        try await store.retireSigningKey(kid: "k1", at: Self.now, removeAfter: Self.now.addingTimeInterval(10))
        #expect(try await store.signingKeys().first?.removeAfter == Self.now.addingTimeInterval(10))
        try await store.close()
    }

    @Test("garbage collection removes what expired and keeps what is live", arguments: StoreBackend.allCases)
    func purge(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.ping()
        try await store.insertSession(Self.session("old", expires: 10))
        try await store.insertFamily(Self.family("f-old", session: "old", refresh: nil))
        try await store.insertSession(Self.session("live", expires: 100_000))
        try await store.insertPending(PendingAuthorization(clientId: "k", appKey: "k", authServiceId: "s", redirectURI: "r", scope: "",
                                                           state: nil, nonce: nil, codeChallenge: nil, mode: .api,
                                                           createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(5)), idHash: "p")
        let removed = try await store.purgeExpired(before: Self.now.addingTimeInterval(1000))
        #expect(removed == 3)
        #expect(try await store.session(id: "old") == nil)
        #expect(try await store.family(id: "f-old") == nil)
        #expect(try await store.session(id: "live") != nil)
        try await store.close()
    }
}
