import Foundation
import Hummingbird
import HummingbirdTesting
@testable import IdentityApp
import NIOCore
import IdentityCore
import OAuthEngine
import Testing

@Suite("Bad input gets a clear error, never a 500")
struct BadInputTests {
    static let auth = basicAuth(TestBroker.appKey, TestBroker.appSecret)

    @Test("authorization endpoint: unknown or missing client, redirect_uri mismatch → error page, no redirect")
    func authorizationErrorsWithoutRedirect() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let cases: [[(String, String)]] = [
                [("redirect_uri", TestBroker.redirect), ("response_type", "code")],
                [("client_id", "kid_unknown"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")],
                [("client_id", "\(TestBroker.appKey).nope"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")],
                [("client_id", TestBroker.appKey), ("redirect_uri", "https://evil.example.com/cb"), ("response_type", "code")],
                [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect + "/extra"), ("response_type", "code")],
                [("client_id", TestBroker.appKey), ("response_type", "code")],
                [("client_id", TestBroker.appKey), ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect)],
            ]
            for query in cases {
                let response = try await client.get("/oauth/auth?" + formEncode(query))
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.location == nil, "\(query)")
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
        }
    }

    @Test("authorization endpoint: errors after a valid redirect_uri go back to it with error, state and iss (RFC 9207)")
    func authorizationErrorsRedirected() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let base = [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("state", "abc")]
            let cases: [[(String, String)]] = [
                [("response_type", "token")],
                [],
                [("response_type", "code"), ("code_challenge", Flows.challenge), ("code_challenge_method", "plain")],
                [("response_type", "code"), ("code_challenge", Flows.challenge)],
                [("response_type", "code"), ("code_challenge", "short"), ("code_challenge_method", "S256")],
                [("response_type", "code"), ("prompt", "none")],
                [("response_type", "code"), ("prompt", "bogus")],
            ]
            for extra in cases {
                let response = try await client.get("/oauth/auth?" + formEncode(base + extra))
                #expect(response.status == .found, "\(extra)")
                let location = try #require(response.location)
                #expect(location.hasPrefix(TestBroker.redirect + "?"))
                #expect(queryItems(location)["state"] == "abc")
                #expect(queryItems(location)["iss"] == "http://127.0.0.1:8080", "\(extra)")
                #expect(["invalid_request", "login_required"].contains(queryItems(location)["error"] ?? ""))
            }
        }
    }

    @Test("token endpoint: unknown/missing client, wrong secret, unsupported grant, missing parameters")
    func tokenErrors() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let unknown = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "a"), ("password", "b")],
                                                    headers: basicAuth("kid_nope", "x"))
            #expect(unknown.status == .unauthorized)
            #expect(unknown.json["error"] as? String == "invalid_client")
            let missing = try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", TestBroker.redirect)])
            #expect(missing.status == .unauthorized)
            let wrongSecret = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "alicepw")],
                                                        headers: basicAuth(TestBroker.appKey, "wrong-secret"))
            #expect(wrongSecret.status == .unauthorized)
            #expect(wrongSecret.headers[.wwwAuthenticate] == #"Basic realm="idconnect""#)
            let mismatched = try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", "kid_other"), ("username", "alice"), ("password", "alicepw")],
                                                       headers: Self.auth)
            #expect(mismatched.status == .unauthorized)
            let unsupported = try await client.postForm("/oauth/token", [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")], headers: Self.auth)
            #expect(unsupported.json["error"] as? String == "unsupported_grant_type")
            let noGrant = try await client.postForm("/oauth/token", [], headers: Self.auth)
            #expect(noGrant.json["error"] as? String == "invalid_request")
            let badCode = try await client.postForm("/oauth/token", [("grant_type", "authorization_code"), ("code", "nope"), ("redirect_uri", TestBroker.redirect)], headers: Self.auth)
            #expect(badCode.json["error"] as? String == "invalid_grant")
            let noCode = try await client.postForm("/oauth/token", [("grant_type", "authorization_code")], headers: Self.auth)
            #expect(noCode.json["error"] as? String == "invalid_request")
            let badBasic = try await client.postForm("/oauth/token", [("grant_type", "password")], headers: [.authorization: "Basic !!!notbase64"])
            #expect(badBasic.status == .unauthorized)
        }
    }

    @Test("malformed form, JSON and content types; repeated parameters")
    func malformedBodies() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let badPercent = try await client.postRaw("/oauth/token", body: "grant_type=pass%ZZword", contentType: "application/x-www-form-urlencoded", headers: Self.auth)
            #expect(badPercent.status == .badRequest)
            #expect(badPercent.json["error"] as? String == "invalid_request")
            let badJSON = try await client.postRaw("/oauth/auth", body: "{\"client_id\": ", contentType: "application/json")
            #expect(badJSON.status == .badRequest)
            let nested = try await client.postRaw("/oauth/auth", body: "{\"client_id\": {\"a\": 1}}", contentType: "application/json")
            #expect(nested.json["error"] as? String == "invalid_request")
            let xml = try await client.postRaw("/oauth/token", body: "<x/>", contentType: "application/xml", headers: Self.auth)
            #expect(xml.status == .badRequest)
            let repeated = try await client.postRaw("/oauth/token", body: "grant_type=password&grant_type=password", contentType: "application/x-www-form-urlencoded", headers: Self.auth)
            #expect(repeated.json["error"] as? String == "invalid_request")
            let huge = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", String(repeating: "a", count: 10_000)), ("password", "x")], headers: Self.auth)
            #expect(huge.status == .badRequest)
            let json = try await client.postRaw("/oauth/auth", body: #"{"client_id":"kid_test","redirect_uri":"https://app.example.com/cb","response_type":"code"}"#, contentType: "application/json")
            #expect(json.status == .ok)
            #expect(json.json["temp_login_uri"] is String)
        }
    }

    @Test("a 2 MiB body gets 413, with Content-Length or chunked")
    func oversizedBody() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let big = String(repeating: "a", count: 2 << 20)
            for path in ["/oauth/token", "/oauth/auth", "/v2/oauth/authenticate/abc"] {
                let response = try await client.postRaw(path, body: "x=" + big, contentType: "application/x-www-form-urlencoded")
                #expect(response.status == .contentTooLarge, "\(path)")
                #expect(response.json["error"] as? String == "invalid_request")
            }
        }
    }

    @Test("automated grant: wrong Basic secret is 401; unknown client and bad redirect_uri are JSON errors, never redirects")
    func automatedGrantErrors() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let wrong = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code")],
                                                  headers: basicAuth(TestBroker.appKey, "nope"))
            #expect(wrong.status == .unauthorized)
            let unknown = try await client.postForm("/oauth/auth", [("client_id", "kid_x"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")])
            #expect(unknown.status == .unauthorized)
            #expect(unknown.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            #expect(unknown.json["error"] as? String == "invalid_client")
            #expect(unknown.location == nil)
            let evil = try await client.postForm("/oauth/auth", [("client_id", TestBroker.appKey), ("redirect_uri", "https://evil.example/cb"), ("response_type", "code")])
            #expect(evil.status == .badRequest)
            #expect(evil.location == nil)
            #expect(evil.json["error"] as? String == "invalid_request")
        }
    }

    @Test("hostile garbage on every endpoint never produces a 5xx")
    func garbageNeverFails() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            // Long values stay under the 16 KiB head limit in the GET query below (eight of them,
            // percent-encoded); a longer head is a 431, tested with the HTTP limits.
            let values = ["", "%00", "\u{0}", "' OR 1=1 --", "<script>alert(1)</script>", String(repeating: "é", count: 150),
                          "../../etc/passwd", "kid_test.", ".users", "kid_test..users", "kid_test.users.x", "%", "a=b=c", "🙂"]
            let paths = ["/oauth/auth", "/oauth/token", "/oauth/authenticate/x", "/v1/oauth/authenticate/" + String(repeating: "z", count: 500)]
            for path in paths {
                for value in values {
                    let fields = [("client_id", value), ("redirect_uri", value), ("response_type", value), ("grant_type", value),
                                  ("code", value), ("username", value), ("password", value), ("code_verifier", value)]
                    let post = try await client.postForm(path, fields, headers: basicAuth(value, value))
                    #expect(post.status.code < 500, "POST \(path) \(value.prefix(20))")
                    let get = try await client.get(path + "?" + formEncode(fields))
                    #expect(get.status.code < 500, "GET \(path) \(value.prefix(20))")
                }
            }
            for path in ["/nope", "/oauth", "/.well-known/nope", "/oauth/token/extra"] {
                let response = try await client.get(path)
                #expect(response.status.code == 404 || response.status.code == 405)
                #expect(response.json["error"] != nil)
            }
        }
    }
}

@Suite("Form decoding")
struct FormDecodingTests {
    @Test("pairs split at every & and the first =, empty pieces skipped, escapes anywhere in a long value")
    func splitting() throws {
        let token = String(repeating: "eyJhbGciOi.", count: 90)
        let cases: [(String, [String])] = [
            ("", []), ("&", []), ("&&", []), ("a", ["a="]), ("a=", ["a="]), ("=b", ["=b"]), ("a==b", ["a==b"]),
            ("a=1&&b=2", ["a=1", "b=2"]), ("&a=1&", ["a=1"]), ("a=1&b", ["a=1", "b="]), ("a=%2B+x%26", ["a=+ x&"]),
            ("token=\(token)&token_type_hint=access_token", ["token=\(token)", "token_type_hint=access_token"]),
            ("token=\(token)+", ["token=\(token) "]), ("token=\(token)%3D", ["token=\(token)="]),
        ]
        for (body, expected) in cases {
            let pairs = try ParameterDecoding.form(body)
            #expect(pairs.map { "\($0.0)=\($0.1)" } == expected, "\(body.prefix(40))")
        }
        #expect(throws: OAuthError.self) { try ParameterDecoding.form("token=\(token)%4") }
    }

    @Test("percent-encoding, plus signs, empty values; invalid escapes and invalid UTF-8 refused")
    func decoding() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            // A valid request whose values need every decoding rule.
            let ok = try await client.postRaw("/oauth/auth", body: "client_id=kid%5Ftest&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&response_type=code&state=a+b%26c&empty=",
                                              contentType: "application/x-www-form-urlencoded")
            #expect(ok.status == .ok)
            for body in ["client_id=%", "client_id=%4", "client_id=%zz", "client_id=%C3%28", "client_id=%FF"] {
                let response = try await client.postRaw("/oauth/auth", body: body, contentType: "application/x-www-form-urlencoded")
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.json["error"] as? String == "invalid_request")
            }
            // Raw bytes that are not UTF-8 (no escape involved): refused, not repaired.
            let raw = try await client.execute(uri: "/oauth/auth", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                               body: ByteBuffer(bytes: Array("client_id=kid_test&state=".utf8) + [0xFF, 0xFE]))
            #expect(raw.status == .badRequest)
            #expect(raw.json["error_description"] as? String == "The request body is not UTF-8.")
            // The media type is case-insensitive (RFC 9110 §8.3.1).
            let json = try await client.postRaw("/oauth/auth", body: #"{"client_id":"kid_test","redirect_uri":"https://app.example.com/cb","response_type":"code"}"#,
                                                contentType: "Application/JSON; charset=UTF-8")
            #expect(json.status == .ok)
        }
    }
}
