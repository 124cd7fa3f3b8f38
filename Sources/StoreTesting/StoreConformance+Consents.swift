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
