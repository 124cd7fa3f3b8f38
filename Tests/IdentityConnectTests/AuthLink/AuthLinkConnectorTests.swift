import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import Testing

@Suite("AuthLink (custom) connector: every answer shape (docs/connectors/authlink.md, \"The contract\")")
struct AuthLinkConnectorTests {
    @Test("answer shapes map to the right outcome, status and description")
    func shapes() async throws {
        let log = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: log)) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let cases: [(String, Int, String?, String?)] = [
                    ("ok", 200, nil, nil),
                    ("wrong-password-user", 400, "access_denied", nil),
                    ("denied-object", 400, "access_denied", "Account is locked."),
                    ("authError-string", 502, "server_error", "LDAP backend exploded"),
                    ("server-error", 502, "server_error", "Backend bug."),
                    ("unavailable", 503, "temporarily_unavailable", "Mainframe batch window."),
                    ("other-error", 502, "server_error", nil),
                    ("not-authenticated", 400, "access_denied", nil),
                    ("no-token", 502, "server_error", nil),
                    ("not-json", 502, "server_error", nil),
                    ("http-500", 503, "temporarily_unavailable", nil),
                    ("http-404", 502, "server_error", nil),
                    ("huge", 502, "server_error", nil),
                ]
                for (username, status, error, description) in cases {
                    let response = try await AuthLinkFixture.signIn(client, username, password: username == "wrong-password-user" ? "x" : "pw")
                    #expect(response.status.code == status, "\(username)")
                    if let error { #expect(response.json["error"] as? String == error, "\(username)") }
                    if let description { #expect(response.json["error_description"] as? String == description, "\(username)") }
                }
                let wrong = try await AuthLinkFixture.signIn(client, "ok", password: "bad")
                #expect(wrong.json["error"] as? String == "access_denied")
                // Every call carried the shared secret and the exact JSON body.
                let call = try #require(log.all.first)
                #expect(call.headers["x-auth-key"] == "shared-key-1")
                #expect(call.headers["content-type"]?.hasPrefix("application/json") == true)
                let body = try #require(try JSONSerialization.jsonObject(with: call.body) as? [String: String])
                #expect(Set(body.keys) == ["username", "password"])
            }
        }
    }

    @Test("a slow AuthLink times out as temporarily_unavailable within the configured timeout")
    func timeout() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let start = ContinuousClock.now
                let response = try await AuthLinkFixture.signIn(client, "slow")
                #expect(response.status == .serviceUnavailable)
                #expect(ContinuousClock.now - start < .seconds(8))  // 2 s timeout, 10 s answer: slack for a loaded machine
                // A body that stalls after the head counts against the same deadline.
                let bodyStart = ContinuousClock.now
                #expect(try await AuthLinkFixture.signIn(client, "slow-body").status == .serviceUnavailable)
                #expect(ContinuousClock.now - bodyStart < .seconds(8))
                let temp = try await Flows.automatedLogin(client, clientId: AuthLinkFixture.appKey, username: "unavailable", password: "pw")
                #expect(queryItems(temp)["error"] == "temporarily_unavailable")
            }
        }
    }

    @Test("an AuthLink that does not answer at all is temporarily_unavailable")
    func down() async throws {
        let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: "http://127.0.0.1:9", dataLink: "http://127.0.0.1:9"),
                                               registry: AuthLinkFixture.registry)
        try await broker.withClient { client in
            let response = try await AuthLinkFixture.signIn(client, "ok")
            #expect(response.status == .serviceUnavailable)
            #expect(response.json["error"] as? String == "temporarily_unavailable")
        }
    }

    @Test("extra properties become attributes, filtered by allowedAttributes; an id property names the user")
    func attributes() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                let access = try #require(try await AuthLinkFixture.signIn(client, "ok").json["access_token"] as? String)
                let view = try await Flows.validate(client, access).json
                #expect(view["id"] as? String == "ok")
                #expect(view["email"] as? String == "ok@example.org")
                #expect(view["department"] as? String == "R&D")
                #expect(view["secret_flag"] == nil)
                #expect(view["client_token"] as? String == Data("tok-ok".utf8).base64EncodedString())
                let headers = try #require(view["datalink_headers"] as? [String: String])
                #expect(headers == ["X-Kinvey-Auth": Data("tok-ok".utf8).base64EncodedString(), "X-User-Email": "ok@example.org"])
                let renamed = try #require(try await AuthLinkFixture.signIn(client, "renamed").json["access_token"] as? String)
                #expect(try await Flows.validate(client, renamed).json["id"] as? String == "employee-42")
            }
        }
    }
}
