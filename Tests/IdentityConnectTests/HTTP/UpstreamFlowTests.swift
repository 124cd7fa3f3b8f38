import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityCore
import StaticConnector
import Testing

/// A scripted redirect connector: the engine's upstream flow, independent of any protocol.
/// (Real SAML and OIDC providers are exercised by their connectors' own suites.)
struct ScriptedRedirectConnector: RedirectConnector {
    var callbackKind: CallbackKind { .oauthCallback }

    func beginLogin(_ request: RedirectLoginRequest) async throws -> RedirectLoginStart {
        RedirectLoginStart(action: .redirect("https://idp.example.com/authorize?state=\(request.relayState)"),
                           savedState: Data("nonce-for-\(request.relayState.prefix(6))".utf8))
    }

    func finishLogin(_ callback: RedirectCallback) async throws -> LoginResult {
        guard String(decoding: callback.savedState, as: UTF8.self).hasPrefix("nonce-for-") else {
            throw ConnectorFailure(.invalidResponse, "saved state lost")
        }
        switch callback.parameters["outcome"] {
        case "deny": return .rejected(LoginRejection(.other, message: "The identity provider refused the sign-in."))
        case "down": throw ConnectorFailure(.unavailable, "The identity provider is unavailable.")
        default: return .authenticated(ConnectorIdentity(userId: callback.parameters["user"] ?? "upstream-user",
                                                         attributes: ["email": .string("u@example.org")]))
        }
    }
}

struct ScriptedRedirectFactory: ConnectorFactory {
    var providerTypes: [String] { ["oauth2"] }
    func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        ScriptedRedirectConnector()
    }
}

@Suite("Upstream (redirect connector) sign-in flow")
struct UpstreamFlowTests {
    static let files: [String: String] = {
        var files = TestBroker.defaultConfig()
        files["environments/upstream.yaml"] = """
        environments:
          - appKey: kid_up
            appSecret: upstream-secret-1234
            authServices:
              - id: idp
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider: { type: oauth2 }
        """
        return files
    }()

    static func start(_ client: any TestClientProtocol) async throws -> (relay: String, cookie: String) {
        let response = try await client.get("/oauth/auth?" + formEncode([
            ("client_id", "kid_up"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"), ("state", "app-state")]))
        #expect(response.status == .found)
        let location = try #require(response.location)
        #expect(location.hasPrefix("https://idp.example.com/authorize?state="))
        return (try #require(queryItems(location)["state"]), try #require(response.cookies["idc_csrf"]))
    }

    @Test("redirect upstream, come back with state, land on the app with a code that exchanges")
    func success() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: .init([StaticConnectorFactory(), ScriptedRedirectFactory()]))
        try await broker.withClient { client in
            let (relay, cookie) = try await Self.start(client)
            let back = try await client.get("/oauth/callback?" + formEncode([("state", relay), ("user", "carol")]),
                                            headers: [.cookie: "idc_csrf=\(cookie)"])
            let location = try #require(back.location)
            #expect(location.hasPrefix(TestBroker.redirect + "?state=app-state&iss=\(TestBroker.encodedIssuer)&code="))
            let code = try #require(queryItems(location)["code"])
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect), ("client_id", "kid_up")],
                headers: basicAuth("kid_up", "upstream-secret-1234"))
            #expect(tokens.status == .ok)
            // The same callback again is a replay: refused, no redirect.
            let replay = try await client.get("/oauth/callback?" + formEncode([("state", relay)]), headers: [.cookie: "idc_csrf=\(cookie)"])
            #expect(replay.status == .badRequest)
            #expect(replay.location == nil)
        }
    }

    @Test("unsolicited, unknown-state and other-browser callbacks are refused without redirecting")
    func hostileCallbacks() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: .init([StaticConnectorFactory(), ScriptedRedirectFactory()]))
        try await broker.withClient { client in
            let (relay, _) = try await Self.start(client)
            for query in ["", "state=", "state=forged", "code=abc"] {
                let response = try await client.get("/oauth/callback?\(query)")
                #expect(response.status == .badRequest)
                #expect(response.location == nil)
            }
            let otherBrowser = try await client.get("/oauth/callback?state=\(relay)", headers: [.cookie: "idc_csrf=someone-else"])
            #expect(otherBrowser.status == .badRequest)
            #expect(otherBrowser.location == nil)
            // The automated grant is for password connectors only.
            let automated = try await client.postForm("/oauth/auth", [("client_id", "kid_up"), ("redirect_uri", TestBroker.redirect), ("response_type", "code")])
            #expect(automated.json["error"] as? String == "invalid_request")
        }
    }

    @Test("an upstream refusal is access_denied and an outage temporarily_unavailable, both to the app")
    func upstreamErrors() async throws {
        let broker = try await TestBroker.make(files: Self.files, registry: .init([StaticConnectorFactory(), ScriptedRedirectFactory()]))
        try await broker.withClient { client in
            for (outcome, error) in [("deny", "access_denied"), ("down", "temporarily_unavailable")] {
                let (relay, cookie) = try await Self.start(client)
                let back = try await client.get("/oauth/callback?" + formEncode([("state", relay), ("outcome", outcome)]),
                                                headers: [.cookie: "idc_csrf=\(cookie)"])
                let location = try #require(back.location)
                #expect(location.hasPrefix(TestBroker.redirect + "?"))
                #expect(queryItems(location)["error"] == error)
                #expect(queryItems(location)["state"] == "app-state")
            }
        }
    }
}
