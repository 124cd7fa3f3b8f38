import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Refresh grant: rotation, grace period, reuse detection")
struct RefreshGrantTests {
    @Test("every use rotates; the old token within 10 s returns the same pair; after that it revokes the family")
    func rotationGraceAndReuse() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let first = try await Flows.tokens(client)
            let r1 = try #require(first["refresh_token"] as? String)
            let second = try await Flows.refresh(client, r1, extra: [("redirect_uri", "undefined")])
            #expect(second.status == .ok)
            let r2 = try #require(second.json["refresh_token"] as? String)
            #expect(r2 != r1)
            broker.clock.advance(5)
            let retry = try await Flows.refresh(client, r1)
            #expect(retry.json["refresh_token"] as? String == r2)
            #expect(retry.json["access_token"] as? String == second.json["access_token"] as? String)
            broker.clock.advance(6)
            let reuse = try await Flows.refresh(client, r1)
            #expect(reuse.status == .badRequest)
            #expect(reuse.json["error"] as? String == "invalid_grant")
            // The whole family is gone: the current token and its access tokens too.
            #expect(try await Flows.refresh(client, r2).status == .badRequest)
            #expect(try await Flows.validate(client, try #require(second.json["access_token"] as? String)).status == .unauthorized)
        }
    }

    @Test("an older rotated token (two rotations back) is reuse even inside 10 s")
    func olderTokenReuse() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let r1 = try #require(try await Flows.tokens(client)["refresh_token"] as? String)
            let r2 = try #require(try await Flows.refresh(client, r1).json["refresh_token"] as? String)
            let r3 = try #require(try await Flows.refresh(client, r2).json["refresh_token"] as? String)
            #expect(try await Flows.refresh(client, r1).status == .badRequest)
            #expect(try await Flows.refresh(client, r3).status == .badRequest)
        }
    }

    @Test("20 parallel refreshes of one token: one family, one new pair, no spurious errors")
    func concurrentRefreshes() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let r1 = try #require(try await Flows.tokens(client)["refresh_token"] as? String)
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let response = try await Flows.refresh(client, r1)
                        return (response.status.code, response.json["refresh_token"] as? String)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == 200 })
            let pairs = Set(answers.compactMap(\.1))
            #expect(pairs.count == 1)
            let r2 = try #require(pairs.first)
            #expect(try await Flows.refresh(client, r2).status == .ok)
        }
    }

    @Test("refreshTtl and tokenTtl are enforced; refresh: false means no refresh grant")
    func lifetimes() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let tokens = try await Flows.tokens(client)
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await Flows.validate(client, access).status == .ok)
            broker.clock.advance(601)
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            let refreshed = try await Flows.refresh(client, try #require(tokens["refresh_token"] as? String))
            #expect(refreshed.status == .ok)
            let r2 = try #require(refreshed.json["refresh_token"] as? String)
            broker.clock.advance(1_209_601)
            #expect(try await Flows.refresh(client, r2).json["error"] as? String == "invalid_grant")

            let noRefresh = try await Flows.tokens(client, clientId: "\(TestBroker.appKey).norefresh")
            #expect(noRefresh["refresh_token"] == nil)
            let bogus = try await Flows.refresh(client, "not-a-token", clientId: "\(TestBroker.appKey).norefresh")
            #expect(bogus.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("a refresh token only works for the client it was issued to; ID tokens are renewed without nonce")
    func clientBindingAndIDToken() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client, extra: [("scope", "openid"), ("nonce", "n1")])
            let tokens = try await Flows.exchange(client, code: try #require(queryItems(location)["code"])).json
            let r1 = try #require(tokens["refresh_token"] as? String)
            let other = try await Flows.refresh(client, r1, clientId: "\(TestBroker.appKey).opaque")
            #expect(other.json["error"] as? String == "invalid_grant")
            let refreshed = try await Flows.refresh(client, r1)
            let idToken = try #require(refreshed.json["id_token"] as? String)
            let payload = String(decoding: Data(base64URL: idToken.split(separator: ".")[1])!, as: UTF8.self)
            #expect(!payload.contains("nonce"))
        }
    }
}
