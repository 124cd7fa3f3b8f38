import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import Testing

/// A data link's back end exchanges the user's broker access token for the upstream token
/// (docs/token-exchange.md): the AuthLink's token, refreshed first when its TTL ran out — once
/// for twenty callers at once, as the gateway does — and only for the data links the client may.
@Suite("Token exchange for the upstream token (AuthLink)")
struct UpstreamTokenExchangeTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessType = "urn:ietf:params:oauth:token-type:access_token"
    static let backEnd = "\(AuthLinkFixture.appKey).backend"

    static func files(authLink: String, dataLink: String) -> [String: String] {
        var files = AuthLinkFixture.files(authLink: authLink, dataLink: dataLink)
        files["environments/authlink.yaml"] = files["environments/authlink.yaml"]!.replacingOccurrences(of: "    dataLinks:\n", with: """
                  - id: backend
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    tokenExchange: { dataLinks: [ crm, bound ] }
                    provider: { type: custom, remoteService: "\(authLink)/login" }
                dataLinks:

            """)
        return files
    }

    /// A broker with the AuthLink environment (and the `backend` client) beside a scriptable AuthLink.
    static func withBroker(_ body: @Sendable (TestBroker, any TestClientProtocol, CallLog) async throws -> Void) async throws {
        let authLog = CallLog()
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: authLog)) { authLink in
            try await TestHTTPServer.with(RecordingDataLink.router(log: CallLog())) { dataLink in
                let broker = try await TestBroker.make(files: files(authLink: authLink, dataLink: dataLink), registry: AuthLinkFixture.registry)
                try await broker.withClient { client in try await body(broker, client, authLog) }
            }
        }
    }

    static func exchange(_ client: any TestClientProtocol, _ subject: String, audience: String,
                         clientId: String = backEnd) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", grantType), ("client_id", clientId), ("subject_token", subject),
                                                   ("subject_token_type", accessType), ("audience", audience)],
                                  headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret))
    }

    @Test("the upstream token for crm; after its TTL one refresh for 20 concurrent exchanges; never for a link not allowed")
    func upstreamToken() async throws {
        try await Self.withBroker { broker, client, authLog in
            let access = try #require(try await AuthLinkFixture.signIn(client, "expiring").json["access_token"] as? String)
            let first = try await Self.exchange(client, access, audience: "crm")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.json["access_token"] as? String == "tok-expiring")
            #expect(first.json["issued_token_type"] as? String == Self.accessType && first.json["refresh_token"] == nil)
            broker.clock.advance(100)
            let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await Self.exchange(client, access, audience: "crm").json["access_token"] as? String }
                }
                return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens.allSatisfy { $0 == "refreshed-1" })
        #expect(authLog.count(path: "/refresh") == 1)
        // `bound` accepts only the `other` auth service; `down` is not in tokenExchange.dataLinks.
        let bound = try await Self.exchange(client, access, audience: "bound")
        #expect(bound.status == .badRequest && bound.json["error"] as? String == "invalid_request")
        let down = try await Self.exchange(client, access, audience: "down")
        #expect(down.status == .badRequest && down.json["error"] as? String == "unauthorized_client")
        // The app itself (no tokenExchange) gets nothing.
        let app = try await Self.exchange(client, access, audience: "crm", clientId: AuthLinkFixture.appKey)
        #expect(app.json["error"] as? String == "unauthorized_client")
        }
    }

    @Test("an exchanged token of another auth service keeps the user's sign-in refreshed through the user's own source")
    func refreshThroughTheSessionsSource() async throws {
        try await Self.withBroker { broker, client, authLog in
            let signedIn = try await client.postForm("/oauth/token", [
                ("grant_type", "password"), ("client_id", AuthLinkFixture.appKey), ("username", "expiring"), ("password", "pw"),
                ("scope", "openid")], headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret))
            let access = try #require(signedIn.json["access_token"] as? String)
            let exchanged = try await client.postForm("/oauth/token", [
                ("grant_type", Self.grantType), ("client_id", Self.backEnd), ("subject_token", access),
                ("subject_token_type", Self.accessType), ("scope", "openid")],
                headers: basicAuth(AuthLinkFixture.appKey, AuthLinkFixture.secret))
            let token = try #require(exchanged.json["access_token"] as? String, "\(exchanged.text)")
            #expect((exchanged.json["expires_in"] as? Int ?? .max) <= (signedIn.json["expires_in"] as? Int ?? 0))
            broker.clock.advance(100)
            // The backend's own auth service has no refreshUrl: only the user's (`link`) can refresh.
            let validated = try await client.get("/oauth/validate", headers: [.authorization: "Bearer \(token)"])
            #expect(validated.status == .ok, "\(validated.text)")
            #expect(authLog.count(path: "/refresh") == 1)
            #expect(validated.json["client_token"] as? String == Data("refreshed-1".utf8).base64EncodedString())
        }
    }
}
