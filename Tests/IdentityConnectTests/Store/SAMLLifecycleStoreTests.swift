import Foundation
import IdentityCore
import StoreContracts
import Testing

/// What SAML single logout and IdP metadata need from storage, in every backend (part of the
/// shared store suite): sessions found and ended by subject and upstream session, and the last
/// good copy of fetched documents.
extension StoreConformanceTests {
    static func samlSession(_ id: String, subject: String, upstream: String?, expires: TimeInterval = 3600) -> LoginSession {
        var session = Self.session(id, expires: expires)
        session.subject = subject
        session.upstreamSessionKey = upstream
        return session
    }

    @Test("ending a user's sessions: by subject, narrowed to upstream sessions (unknown ones included); families revoked; others untouched",
          arguments: StoreBackend.allCases)
    func endSessionsBySubject(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertSession(Self.samlSession("a1", subject: "alice", upstream: "idx-1"))
        try await store.insertSession(Self.samlSession("a2", subject: "alice", upstream: "idx-2"))
        try await store.insertSession(Self.samlSession("a3", subject: "alice", upstream: nil))
        try await store.insertSession(Self.samlSession("a4", subject: "alice", upstream: "idx-1", expires: -10))
        try await store.insertSession(Self.samlSession("b1", subject: "bob", upstream: "idx-1"))
        try await store.insertFamily(Self.family("f1", session: "a1", refresh: "r1"))
        try await store.insertFamily(Self.family("f2", session: "a2", refresh: "r2"))
        #expect(try await store.session(id: "a1")?.upstreamSessionKey == "idx-1")
        #expect(try await store.session(id: "a3")?.upstreamSessionKey == nil)

        // SessionIndex idx-1: that session, and the one whose index is unknown; not idx-2, not bob's, not the expired one.
        let first = try await store.endSessions(subject: "alice", upstreamSessionKeys: ["idx-1"], at: Self.now)
        #expect(Set(first) == ["a1", "a3"])
        #expect(try await store.session(id: "a1")?.revokedAt != nil)
        #expect(try await store.session(id: "a1")?.sealedUpstream == nil)
        #expect(try await store.family(id: "f1")?.revokedAt != nil)
        #expect(try await store.session(id: "a2")?.revokedAt == nil)
        #expect(try await store.family(id: "f2")?.revokedAt == nil)
        #expect(try await store.session(id: "b1")?.revokedAt == nil)

        // No SessionIndex: every live session of the subject; a second call finds nothing left.
        #expect(try await store.endSessions(subject: "alice", upstreamSessionKeys: nil, at: Self.now) == ["a2"])
        #expect(try await store.family(id: "f2")?.revokedAt != nil)
        #expect(try await store.endSessions(subject: "alice", upstreamSessionKeys: [], at: Self.now).isEmpty)
        #expect(try await store.endSessions(subject: "nobody", upstreamSessionKeys: nil, at: Self.now).isEmpty)
        #expect(try await store.session(id: "b1")?.revokedAt == nil)
        try await store.close()
    }

    @Test("connector documents: saved, read back, replaced only by a copy fetched later", arguments: StoreBackend.allCases)
    func connectorDocuments(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        #expect(try await store.connectorDocument(key: "saml-idp-metadata:https://idp/md") == nil)
        let first = StoredConnectorDocument(data: Data("<md v1/>".utf8), fetchedAt: Self.now)
        try await store.saveConnectorDocument(first, key: "saml-idp-metadata:https://idp/md")
        #expect(try await store.connectorDocument(key: "saml-idp-metadata:https://idp/md") == first)
        // Another instance's older fetch arrives late: the newer copy stays.
        try await store.saveConnectorDocument(StoredConnectorDocument(data: Data("<md v0/>".utf8), fetchedAt: Self.now.addingTimeInterval(-60)),
                                              key: "saml-idp-metadata:https://idp/md")
        #expect(try await store.connectorDocument(key: "saml-idp-metadata:https://idp/md") == first)
        let second = StoredConnectorDocument(data: Data("<md v2/>".utf8), fetchedAt: Self.now.addingTimeInterval(60))
        try await store.saveConnectorDocument(second, key: "saml-idp-metadata:https://idp/md")
        #expect(try await store.connectorDocument(key: "saml-idp-metadata:https://idp/md") == second)
        // Kept through housekeeping: the last good copy has no expiry.
        _ = try await store.purgeExpired(before: Self.now.addingTimeInterval(86_400 * 365))
        #expect(try await store.connectorDocument(key: "saml-idp-metadata:https://idp/md") == second)
        #expect(try await store.connectorDocument(key: "other") == nil)
        try await store.close()
    }
}
