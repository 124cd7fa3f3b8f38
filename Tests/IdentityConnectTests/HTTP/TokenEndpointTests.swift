import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

@Suite("Token endpoint: grants and client authentication")
struct TokenEndpointTests {
    @Test("automated grant → code → tokens with Basic appKey:appSecret")
    func automatedGrant() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let body = try await Flows.tokens(client)
            #expect(body["access_token"] is String)
            #expect(body["refresh_token"] is String)
            #expect(body["id_token"] == nil)
        }
    }

    @Test("Basic user may be the bare appKey while client_id names the auth service; client_secret in the body works too")
    func clientAuthenticationForms() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let suffixed = "\(TestBroker.appKey).opaque"
            let location = try await Flows.automatedLogin(client, clientId: suffixed)
            let code = try #require(queryItems(location)["code"])
            let response = try await Flows.exchange(client, code: code, clientId: suffixed)
            #expect(response.status == .ok)
            // Opaque tokens are not JWTs.
            #expect((response.json["access_token"] as? String)?.contains(".") == false)

            let second = try await Flows.automatedLogin(client)
            let secondCode = try #require(queryItems(second)["code"])
            let bodySecret = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", secondCode), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("client_secret", TestBroker.appSecret)])
            #expect(bodySecret.status == .ok)
        }
    }

    @Test("password grant: success, wrong password (400 access_denied), no client auth (401)")
    func passwordGrant() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let auth = basicAuth(TestBroker.appKey, TestBroker.appSecret)
            let ok = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "bob"), ("password", "bobpw"), ("scope", "openid")], headers: auth)
            #expect(ok.status == .ok)
            #expect(ok.json["id_token"] is String)
            let wrong = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "bob"), ("password", "x")], headers: auth)
            #expect(wrong.status == .badRequest)
            #expect(wrong.json["error"] as? String == "access_denied")
            let anonymous = try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", TestBroker.appKey), ("username", "bob"), ("password", "bobpw")])
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.json["error"] as? String == "invalid_client")
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
        }
    }

    @Test("refresh: false issues no refresh token")
    func noRefresh() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let body = try await Flows.tokens(client, clientId: "\(TestBroker.appKey).norefresh")
            #expect(body["access_token"] is String)
            #expect(body["refresh_token"] == nil)
        }
    }

    @Test("a code is single use; the replay is refused")
    func codeReplay() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(location)["code"])
            let first = try await Flows.exchange(client, code: code)
            #expect(first.status == .ok)
            let access = try #require(first.json["access_token"] as? String)
            let refresh = try #require(first.json["refresh_token"] as? String)
            #expect(try await Flows.validate(client, access).status == .ok)
            let replay = try await Flows.exchange(client, code: code)
            #expect(replay.status == .badRequest)
            #expect(replay.json["error"] as? String == "invalid_grant")
            // The replay revokes what the code issued (RFC 6749 §4.1.2): the stolen code's tokens die.
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            #expect(try await Flows.introspect(client, access)["active"] as? Bool == false)
            #expect(try await Flows.refresh(client, refresh).status == .badRequest)
        }
    }

    @Test("20 concurrent redemptions of one code: exactly one succeeds")
    func concurrentRedemption() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(location)["code"])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await Flows.exchange(client, code: code).status.code } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 19)
        }
    }

    @Test("an expired code is refused (injected clock)")
    func expiredCode() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(location)["code"])
            broker.clock.advance(61)
            let response = try await Flows.exchange(client, code: code)
            #expect(response.status == .badRequest)
            #expect(response.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("an expired temp login URI is refused (injected clock)")
    func expiredTempLogin() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let start = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code")])
            let tempLogin = try #require(start.json["temp_login_uri"] as? String)
            #expect(tempLogin.hasPrefix("http://127.0.0.1:8080/oauth/authenticate/"))
            broker.clock.advance(61)
            let answer = try await client.postForm(pathOf(tempLogin), [("username", "alice"), ("password", "alicepw")])
            #expect(answer.status == .badRequest)
            #expect(answer.location == nil)
        }
    }

    @Test("the temp login URI is single use; a failed attempt redirects with error=access_denied")
    func tempLoginSingleUse() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let start = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "st")])
            let tempLogin = pathOf(try #require(start.json["temp_login_uri"] as? String))
            let wrong = try await client.postForm(tempLogin, [("username", "alice"), ("password", "bad")])
            let location = try #require(wrong.location)
            #expect(location.hasPrefix(TestBroker.redirect + "?"))
            #expect(queryItems(location)["error"] == "access_denied")
            #expect(queryItems(location)["state"] == "st")
            let again = try await client.postForm(tempLogin, [("username", "alice"), ("password", "alicepw")])
            #expect(again.status == .badRequest)
        }
    }

    @Test("PKCE: wrong and missing verifier are refused; a code without PKCE needs client authentication")
    func pkceRules() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let pkce = [("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
            for verifier in [nil, String(repeating: "x", count: 50)] {
                let location = try await Flows.automatedLogin(client, extra: pkce)
                let code = try #require(queryItems(location)["code"])
                let response = try await Flows.exchange(client, code: code, verifier: verifier, authenticate: false)
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String == "invalid_grant")
            }
            let plain = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(plain)["code"])
            let unauthenticated = try await Flows.exchange(client, code: code, authenticate: false)
            #expect(unauthenticated.status == .unauthorized)
            #expect(unauthenticated.json["error"] as? String == "invalid_client")
        }
    }

    @Test("a code issued to one auth service cannot be redeemed by another; redirect_uri must match")
    func codeBinding() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client)
            let code = try #require(queryItems(location)["code"])
            let other = try await Flows.exchange(client, code: code, clientId: "\(TestBroker.appKey).opaque")
            #expect(other.json["error"] as? String == "invalid_grant")

            let second = try await Flows.automatedLogin(client)
            let secondCode = try #require(queryItems(second)["code"])
            let mismatch = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", secondCode), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", TestBroker.appKey)], headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(mismatch.json["error"] as? String == "invalid_grant")
        }
    }
}
