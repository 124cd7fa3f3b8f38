import Foundation
import StoreContracts
import Testing

/// Consents (``ConsentStore``): one per user and client, replaced by a later decision that keeps
/// the first date, listed newest first, removed once.
extension StoreConformance {
    static func consentRecords(_ roles: StoreRoles) async throws {
        let now = StoreFixtures.now
        let consents = roles.consents
        #expect(try await consents.consent(subject: "sub-a", clientId: "kid.svc") == nil)
        try await consents.saveConsent(ConsentRecord(subject: "sub-a", clientId: "kid.svc", scopes: ["profile", "openid", "openid"],
                                                     grantedAt: now, updatedAt: now))
        let first = try #require(try await consents.consent(subject: "sub-a", clientId: "kid.svc"))
        #expect(first.scopes == ["openid", "profile"], "sorted, each once")

        let later = now.addingTimeInterval(60)
        try await consents.saveConsent(ConsentRecord(subject: "sub-a", clientId: "kid.svc", scopes: ["openid", "email"],
                                                     grantedAt: later, updatedAt: later))
        let replaced = try #require(try await consents.consent(subject: "sub-a", clientId: "kid.svc"))
        #expect(replaced.scopes == ["email", "openid"], "a new decision replaces the scopes")
        #expect(replaced.grantedAt == now && replaced.updatedAt == later, "and keeps the first date")

        try await consents.saveConsent(ConsentRecord(subject: "sub-a", clientId: "other.svc", scopes: ["openid"],
                                                     grantedAt: now.addingTimeInterval(30), updatedAt: now.addingTimeInterval(30)))
        try await consents.saveConsent(ConsentRecord(subject: "sub-b", clientId: "kid.svc", scopes: ["openid"], grantedAt: now, updatedAt: now))
        #expect(try await consents.consents(subject: "sub-a", limit: 10).map(\.clientId) == ["kid.svc", "other.svc"], "newest decision first")
        #expect(try await consents.consents(subject: "sub-a", limit: 1).map(\.clientId) == ["kid.svc"])
        #expect(try await consents.consents(subject: "sub-c", limit: 10).isEmpty)

        #expect(try await consents.revokeConsent(subject: "sub-a", clientId: "kid.svc"))
        #expect(try await !consents.revokeConsent(subject: "sub-a", clientId: "kid.svc"), "gone once")
        #expect(try await consents.consent(subject: "sub-a", clientId: "kid.svc") == nil)
        #expect(try await consents.consent(subject: "sub-b", clientId: "kid.svc") != nil, "another user's consent stays")
    }
}

/// Permission requests (``PermissionStore``): found by id, link and reference; one reference per
/// client; decided exactly once.
extension StoreConformance {
    static func permission(_ id: String, client: String = "kid.svc", reference: String?) -> PermissionRequest {
        PermissionRequest(id: id, uriHash: "uri-\(id)", clientId: client, username: "alice", subject: nil, scope: "openid email",
                          resources: ["https://api.example.com"], redirectURI: "https://app.example.com/cb", state: "st-\(id)",
                          codeChallenge: "challenge", externalReference: reference, notificationURI: nil,
                          createdAt: StoreFixtures.now, expiresAt: StoreFixtures.now.addingTimeInterval(600))
    }

    static func permissionRequests(_ roles: StoreRoles) async throws {
        let store = roles.permissions
        let first = permission("p1", reference: "order-1")
        #expect(try await store.insertPermission(first))
        #expect(try await !store.insertPermission(permission("p2", reference: "order-1")), "one reference per client")
        #expect(try await store.insertPermission(permission("p3", client: "other.svc", reference: "order-1")), "another client's may match")
        #expect(try await store.insertPermission(permission("p4", reference: nil)))
        #expect(try await store.insertPermission(permission("p5", reference: nil)), "no reference: no constraint")
        #expect(try await store.permission(id: "p1") == first)
        #expect(try await store.permission(uriHash: "uri-p1") == first)
        #expect(try await store.permission(clientId: "kid.svc", externalReference: "order-1") == first)
        #expect(try await store.permission(id: "p2") == nil)
        #expect(try await store.permission(clientId: "kid.svc", externalReference: "none") == nil)

        var granted = first
        granted.status = .granted
        granted.subject = "sub-a"
        granted.grantedScopes = ["openid"]
        granted.decidedAt = StoreFixtures.now.addingTimeInterval(5)
        var rejected = first
        rejected.status = .denied
        let denied = rejected, winner = granted
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 { group.addTask { try await store.settlePermission(index == 0 ? winner : denied, from: .pending) } }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "exactly one decision wins")
        let decided = try #require(try await store.permission(id: "p1"))
        #expect(decided.status != .pending)
        if decided.status == .granted {
            #expect(decided == granted)
            #expect(try await store.grantedPermissions(subject: "sub-a", clientIds: ["kid.svc"]).map(\.id) == ["p1"])
            #expect(try await store.grantedPermissions(subject: "sub-a", clientIds: ["other.svc"]).isEmpty)
            var revoked = decided
            revoked.status = .revoked
            #expect(try await store.settlePermission(revoked, from: .granted))
            #expect(try await store.grantedPermissions(subject: "sub-a", clientIds: ["kid.svc"]).isEmpty)
        }
    }
}
