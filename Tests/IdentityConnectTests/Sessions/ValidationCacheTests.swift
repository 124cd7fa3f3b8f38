import Foundation
import Hummingbird
import HummingbirdTesting
@testable import OAuthEngine
import StoreContracts
import Testing

/// Validation reads a token's access context from a short-lived memo (`AccessContextCache`):
/// a revocation on the same instance must be seen at once, one on another instance within
/// `AccessContextCache.maximumAge` (the contract is 1 s, docs/protocol.md).
@Suite("Validation cache: revocation on this and other instances")
struct ValidationCacheTests {
    @Test("a revocation on the same instance is refused at once, right after validates filled the cache",
          arguments: StoreBackend.allCases)
    func sameInstance(_ backend: StoreBackend) async throws {
        let broker = try await TestBroker.make(backend: backend)
        try await broker.withClient { client in
            for (revoke, kind) in [("access", "the access token itself"), ("refresh", "its refresh token (the family)")] {
                let tokens = try await Flows.tokens(client)
                let access = try #require(tokens["access_token"] as? String)
                for _ in 0..<3 { #expect(try await Flows.validate(client, access).status == .ok) }
                let token = try #require(tokens[revoke + "_token"] as? String)
                let revoked = try await client.postForm("/oauth/revoke", [("token", token)],
                                                        headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                #expect(revoked.status == .ok)
                #expect(try await Flows.validate(client, access).status == .unauthorized, "after revoking \(kind)")
                #expect(try await Flows.introspect(client, access)["active"] as? Bool == false, "after revoking \(kind)")
            }
        }
    }

    @Test("a revocation on one instance is refused on the other within maximumAge (PostgreSQL)",
          .enabled(if: PostgresTestDatabase.serverURL != nil, PostgresTestDatabase.skipReason))
    func otherInstance() async throws {
        let first = try await TestBroker.make(backend: .postgres)
        let second = try await first.sibling()
        try await first.withClient { one in
            try await second.withClient { two in
                let tokens = try await Flows.tokens(one)
                let access = try #require(tokens["access_token"] as? String)
                for _ in 0..<3 {
                    #expect(try await Flows.validate(one, access).status == .ok)
                    #expect(try await Flows.validate(two, access).status == .ok)
                }
                let revoked = try await one.postForm("/oauth/revoke", [("token", try #require(tokens["refresh_token"] as? String))],
                                                     headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                #expect(revoked.status == .ok)
                let revokedAt = ContinuousClock.now
                #expect(try await Flows.validate(one, access).status == .unauthorized)
                // The other instance may answer from its memo for at most maximumAge; every
                // validate it begins after that is refused.
                var refusedAfter: Duration?
                while refusedAfter == nil {
                    let began = ContinuousClock.now - revokedAt
                    let status = try await Flows.validate(two, access).status
                    if status == .unauthorized {
                        refusedAfter = began
                    } else {
                        #expect(status == .ok)
                        #expect(began < AccessContextCache.maximumAge, "a validate begun \(began) after the revocation passed")
                        if began >= AccessContextCache.maximumAge { break }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                #expect(refusedAfter != nil)
            }
        }
    }

    @Test("the memo: served while young and unchanged; dropped when the store counts a write or the entry ages")
    func memo() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in _ = try await Flows.tokens(client) }
        let session = try #require(try await broker.engine.storage.sessions.liveSessions(authServiceId: nil, user: nil, at: Date(), limit: 1).first)
        let family = TokenFamily(id: "f1", sessionId: session.id, clientId: TestBroker.appKey, scope: "openid", nonce: nil,
                                 createdAt: Date(), refreshHash: nil, refreshExpiresAt: nil)
        let context = AccessContext(family: family, session: session, accessTokenRevoked: false)
        let cache = AccessContextCache(capacity: 2, maximumAge: .milliseconds(200))
        cache.store(context, familyId: "f1", jti: "j1", changes: 7, readAt: .now)
        #expect(cache.context(familyId: "f1", jti: "j1", changes: 7) == context)
        #expect(cache.context(familyId: "f1", jti: "j2", changes: 7) == nil)
        #expect(cache.context(familyId: "f1", jti: "j1", changes: 8) == nil, "a write since the read")
        #expect(cache.context(familyId: "f1", jti: "j1", changes: 7) == nil, "dropped for good once a write was seen")
        cache.store(context, familyId: "f1", jti: "j1", changes: 8, readAt: .now - .milliseconds(250))
        #expect(cache.context(familyId: "f1", jti: "j1", changes: 8) == nil, "older than maximumAge")
    }

    @Test("the verified-token memo: a token that ends like a memoized one (same signature, another payload) is checked in full and refused")
    func verifiedMemoComparesWholeTokens() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let access = try #require(try await Flows.tokens(client)["access_token"] as? String)
            #expect(try await Flows.validate(client, access).status == .ok)  // now memoized
            let parts = access.split(separator: ".").map(String.init)
            try #require(parts.count == 3)
            // One payload character changed: the same length and signature, so the same hash.
            var payload = Array(parts[1].utf8)
            payload[8] = payload[8] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let forged = [parts[0], String(decoding: payload, as: UTF8.self), parts[2]].joined(separator: ".")
            #expect(SignedTokenKey(token: forged).hashValue == SignedTokenKey(token: access).hashValue)
            #expect(SignedTokenKey(token: forged) != SignedTokenKey(token: access))
            #expect(try await Flows.validate(client, forged).status == .unauthorized)
            #expect(try await Flows.introspect(client, forged)["active"] as? Bool == false)
            #expect(try await Flows.validate(client, access).status == .ok)
        }
        var keys = Set<SignedTokenKey>()
        let signature = String(repeating: "s", count: 40)
        for claims in ["a.b.", "a.c.", "a.bb."] { keys.insert(SignedTokenKey(token: claims + signature)) }
        keys.insert(SignedTokenKey(token: "a.b." + signature))
        #expect(keys.count == 3, "equal only by the whole text")
    }
}
