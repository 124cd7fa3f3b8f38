import Foundation
import StoreContracts
import Testing

/// `liveSessions`, which the operator commands list and revoke through, on every backend.
@Suite("Store conformance: listing live sessions")
struct SessionListingStoreTests {
    static let now = StoreConformanceTests.now

    static func session(_ id: String, user: String, service: String, createdAgo: TimeInterval,
                        expiresIn: TimeInterval = 3600) -> LoginSession {
        var session = StoreConformanceTests.session(id, expires: expiresIn)
        session.userId = user
        session.authServiceId = service
        session.createdAt = now.addingTimeInterval(-createdAgo)
        return session
    }

    @Test("live sessions by auth service and by user (any case, or subject), newest first; revoked and expired left out",
          arguments: StoreBackend.allCases)
    func listing(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        for session in [
            Self.session("s1", user: "Alice", service: "ldap", createdAgo: 30),
            Self.session("s2", user: "alice", service: "saml", createdAgo: 20),
            Self.session("s3", user: "bob", service: "ldap", createdAgo: 10),
            Self.session("s4", user: "alice", service: "ldap", createdAgo: 5, expiresIn: -1),
            Self.session("s5", user: "alice", service: "ldap", createdAgo: 1),
        ] { try await store.insertSession(session) }
        try await store.revokeSession(id: "s5", at: Self.now)

        func ids(_ service: String?, _ user: String?, limit: Int = 10) async throws -> [String] {
            try await store.liveSessions(authServiceId: service, user: user, at: Self.now, limit: limit).map(\.id)
        }
        #expect(try await ids(nil, nil) == ["s3", "s2", "s1"])
        #expect(try await ids(nil, nil, limit: 2) == ["s3", "s2"])
        #expect(try await ids("ldap", nil) == ["s3", "s1"])
        #expect(try await ids(nil, "ALICE") == ["s2", "s1"])
        #expect(try await ids("ldap", "alice") == ["s1"])
        #expect(try await ids(nil, "sub-s3") == ["s3"])
        #expect(try await ids(nil, "carol").isEmpty)
        // Filter values are data, never SQL.
        #expect(try await ids(nil, "' OR '1'='1").isEmpty)
        #expect(try await ids("x' OR auth_service_id LIKE '%", nil).isEmpty)
        try await store.close()
    }
}
