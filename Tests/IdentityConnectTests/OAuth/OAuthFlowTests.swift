import Crypto
import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// The upstream code flow's wire details, errors and refresh, against ``FakeOpenIDProvider``.
@Suite("oauth2 / openid-connect: wire details, errors and refresh (fake provider)")
struct OAuthFlowTests {
    /// The code flow through the `plain` (oauth2) service; returns the authorization URL and the token request.
    static func plainSignIn(_ client: any TestClientProtocol, provider: FakeOpenIDProvider) async throws -> (authorize: [String: String], token: CallLog.Call, location: String) {
        let (query, _, cookie) = try await FakeProviderFixture.start(client, authService: "plain")
        let answer = try await client.get("/oauth/callback?" + formEncode([("code", "c-9"), ("state", query["state"] ?? "")]),
                                          headers: [.cookie: "idc_csrf=\(cookie)"])
        let token = try #require(provider.log.all.last { $0.path == "/token" })
        return (query, token, try #require(answer.location))
    }

    static func form(_ call: CallLog.Call) -> [String: String] {
        queryItems("http://x/?" + String(decoding: call.body, as: UTF8.self))
    }

    @Test("oauth2: PKCE S256, state, redirect_uri, configured scopes, Basic client auth; user id from a dotted path")
    func wire() async throws {
        let provider = FakeOpenIDProvider()
        provider.update { $0.extraTokenFields = ["user": #"{"id": 42, "name": "Forty Two"}"#] }
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let (authorize, token, location) = try await Self.plainSignIn(client, provider: provider)
                #expect(authorize["tenant"] == "t1")
                #expect(authorize["response_type"] == "code")
                #expect(authorize["client_id"] == "broker app")
                #expect(authorize["redirect_uri"] == "http://127.0.0.1:8080/oauth/callback")
                #expect(authorize["scope"] == "read write")
                #expect(authorize["code_challenge_method"] == "S256")
                #expect(authorize["nonce"] == nil)
                #expect((authorize["state"] ?? "").count >= 43)
                let body = Self.form(token)
                let verifier = try #require(body["code_verifier"])
                #expect(Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) == authorize["code_challenge"])
                #expect(body["grant_type"] == "authorization_code")
                #expect(body["code"] == "c-9")
                #expect(body["redirect_uri"] == "http://127.0.0.1:8080/oauth/callback")
                #expect(body["client_secret"] == nil)
                #expect(body["client_id"] == nil)
                // RFC 6749 §2.3.1: id and secret form-encoded, then Base64.
                let basic = try #require(token.headers["authorization"]?.split(separator: " ").last.flatMap { Data(base64Encoded: String($0)) })
                let pair = String(decoding: basic, as: UTF8.self).split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding }
                #expect(pair == ["broker app", "s3cret:x"])
                #expect(!String(decoding: basic, as: UTF8.self).contains("s3cret:x"))

                let code = try #require(queryItems(location)["code"], "\(location)")
                let tokens = try await OAuthPeerFixture.exchange(client, code: code, authService: "plain")
                let validated = try await OAuthPeerFixture.validate(client, try #require(tokens.json["access_token"] as? String))
                #expect(validated.json["id"] as? String == "42")
                #expect(OAuthPeerFixture.upstreamToken(validated.json) == "upstream-access-1")
            }
        }
    }

    @Test("includeClientIdInTokenRequest and includeClientSecretInTokenRequest move the credentials into the body")
    func clientAuthentication() async throws {
        let provider = FakeOpenIDProvider()
        provider.update { $0.extraTokenFields = ["user": #"{"id": "u1"}"#] }
        try await TestHTTPServer.with(provider.router()) { base in
            for (extra, basic, id, secret) in [(", includeClientIdInTokenRequest: true", true, true, false),
                                               (", includeClientSecretInTokenRequest: true", false, true, true)] {
                let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base, oauth2Extra: extra), registry: OAuthPeerFixture.registry)
                try await broker.withClient { client in
                    let (_, token, location) = try await Self.plainSignIn(client, provider: provider)
                    #expect(queryItems(location)["code"] != nil)
                    let body = Self.form(token)
                    #expect((token.headers["authorization"] != nil) == basic, "\(extra)")
                    #expect((body["client_id"] == "broker app") == id, "\(extra)")
                    #expect((body["client_secret"] == "s3cret:x") == secret, "\(extra)")
                }
            }
        }
    }

    @Test("upstream errors: access_denied and outages reach the app; nonsense is server_error")
    func upstreamErrors() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let cases: [([(String, String)], String)] = [
                    ([("error", "access_denied"), ("error_description", "User said no")], "access_denied"),
                    ([("error", "login_required")], "access_denied"),
                    ([("error", "temporarily_unavailable")], "temporarily_unavailable"),
                    ([("error", "invalid_scope")], "server_error"),
                    ([("code", "c-1"), ("iss", "https://evil.example.com")], "server_error"),
                    ([], "server_error"),
                ]
                for (parameters, expected) in cases {
                    let (query, _, cookie) = try await FakeProviderFixture.start(client)
                    let answer = try await client.get("/oauth/callback?" + formEncode(parameters + [("state", query["state"] ?? "")]),
                                                      headers: [.cookie: "idc_csrf=\(cookie)"])
                    let location = try #require(answer.location)
                    #expect(location.hasPrefix(TestBroker.redirect + "?"))
                    #expect(queryItems(location)["error"] == expected, "\(parameters)")
                    #expect(queryItems(location)["state"] == "app-state")
                }
                provider.update { $0.tokenStatus = 503 }
                let down = try await FakeProviderFixture.signIn(client, provider: provider) { _ in nil }
                #expect(queryItems(down)["error"] == "temporarily_unavailable")
            }
        }
        // A provider that does not answer at all: the sign-in cannot even start, the password grant is 503.
        let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: "http://127.0.0.1:9"), registry: OAuthPeerFixture.registry)
        try await broker.withClient { client in
            let response = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", "\(OAuthPeerFixture.appKey).fake"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "s")]))
            let location = try #require(response.location)
            #expect(queryItems(location)["error"] == "temporarily_unavailable")
        }
        let password = OAuthPeerFixture.service("pw", type: "oauth2", remoteService: "http://127.0.0.1:9/token",
                                                options: "clientId: c, grantType: password, timeout: 2")
        let passwordBroker = try await TestBroker.make(files: OAuthPeerFixture.files(password), registry: OAuthPeerFixture.registry)
        try await passwordBroker.withClient { client in
            let answer = try await OAuthPeerFixture.passwordGrant(client, authService: "pw", username: "alice", password: "alicepw")
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.json["error"] as? String == "temporarily_unavailable")
        }
    }

    @Test("a discovery document naming another issuer is refused")
    func discoveryIssuerMismatch() async throws {
        let provider = FakeOpenIDProvider()
        provider.update { $0.discoveryIssuer = "https://evil.example.com" }
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let response = try await client.get("/oauth/auth?" + formEncode([
                    ("client_id", "\(OAuthPeerFixture.appKey).fake"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")]))
                #expect(queryItems(try #require(response.location))["error"] == "server_error")
            }
        }
    }

    @Test("forged state, replayed callbacks and callbacks from another browser: invalid_request, no redirect")
    func stateMismatchAndReplay() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let (query, _, cookie) = try await FakeProviderFixture.start(client)
                let state = try #require(query["state"])
                for hostile in [[("code", "c-1"), ("state", "forged-\(state)")], [("code", "c-1")],
                                [("error", "access_denied"), ("state", "attacker")]] {
                    let answer = try await client.get("/oauth/callback?" + formEncode(hostile), headers: [.cookie: "idc_csrf=\(cookie)"])
                    #expect(answer.status == .badRequest)
                    #expect(answer.location == nil)
                }
                let otherBrowser = try await client.get("/oauth/callback?" + formEncode([("code", "c-1"), ("state", state)]),
                                                        headers: [.cookie: "idc_csrf=attacker"])
                #expect(otherBrowser.status == .badRequest)
                #expect(otherBrowser.location == nil)

                provider.update { $0.idToken = Mint.rs256(Mint.claims(issuer: base, nonce: query["nonce"], now: broker.clock.now())) }
                let genuine = try await client.get("/oauth/callback?" + formEncode([("code", "c-1"), ("state", state)]),
                                                   headers: [.cookie: "idc_csrf=\(cookie)"])
                #expect(queryItems(try #require(genuine.location))["code"] != nil)
                let replay = try await client.get("/oauth/callback?" + formEncode([("code", "c-1"), ("state", state)]),
                                                  headers: [.cookie: "idc_csrf=\(cookie)"])
                #expect(replay.status == .badRequest)
                #expect(replay.location == nil)
                #expect(replay.text.contains("invalid_request") || replay.text.contains("already used"))
            }
        }
    }

    @Test("upstream refresh: rotated refresh tokens used, an outage keeps the session (503), so does a client-credential problem (502), a refusal ends it")
    func refresh() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let location = try await FakeProviderFixture.signIn(client, provider: provider) {
                    Mint.rs256(Mint.claims(issuer: base, nonce: $0, now: broker.clock.now()))
                }
                let tokens = try await OAuthPeerFixture.exchange(client, code: try #require(queryItems(location)["code"]), authService: "fake")
                let access = try #require(tokens.json["access_token"] as? String)
                func upstream() async throws -> (status: Int, token: String?) {
                    let answer = try await OAuthPeerFixture.validate(client, access)
                    return (Int(answer.status.code), OAuthPeerFixture.upstreamToken(answer.json))
                }
                #expect(try await upstream().token == "upstream-access-1")
                broker.clock.advance(40)
                #expect(try await upstream().token == "upstream-access-2")
                broker.clock.advance(40)
                #expect(try await upstream().token == "upstream-access-3")   // only possible with the rotated refresh token

                // Upstream tokens and the id_token are sealed: none of them is in the database in clear.
                var bytes = Data()
                for suffix in ["", "-wal", "-shm"] { bytes.append(FileManager.default.contents(atPath: broker.databasePath + suffix) ?? Data()) }
                #expect(bytes.count > 10_000)
                let idToken = try #require(provider.state.withLock { $0.idToken })
                for secret in ["upstream-access-", "upstream-refresh-", String(idToken.split(separator: ".")[2].prefix(40)), "s3cret"] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "found \(secret.prefix(20)) in the database")
                }

                provider.update { $0.refreshMode = .down }
                broker.clock.advance(40)
                #expect(try await upstream().status == 503)
                #expect(try await upstream().status == 503)
                provider.update { $0.refreshMode = .rotate }
                #expect(try await upstream().token == "upstream-access-4")

                // The provider no longer accepts the broker's client credentials: 502, and nobody is signed out.
                provider.update { $0.refreshMode = .badClient }
                broker.clock.advance(40)
                #expect(try await upstream().status == 502)
                provider.update { $0.refreshMode = .rotate }
                #expect(try await upstream().token == "upstream-access-5")

                provider.update { $0.refreshMode = .refuse }
                broker.clock.advance(40)
                #expect(try await upstream().status == 401)
                let refreshed = try await OAuthPeerFixture.refresh(client, try #require(tokens.json["refresh_token"] as? String), authService: "fake")
                #expect(refreshed.json["error"] as? String == "invalid_grant")
            }
        }
    }
}
