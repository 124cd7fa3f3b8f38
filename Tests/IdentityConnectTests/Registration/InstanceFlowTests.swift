import Foundation
import JOSE
import Hummingbird
import HummingbirdTesting
import IdentityApp
import Logging
import OAuthEngine
import Testing

/// What a registered instance can do after registration, through HTTP
/// (docs/protocol.md, "POST /oauth/token" and "Mobile app instances").
@Suite("Mobile app instance sign-in and re-login")
struct InstanceFlowTests {
    @Test("register → code + PKCE sign-in → client_credentials re-login → DELETE → re-login refused")
    func fullFlow() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let signIn = try await InstanceFlows.signIn(client, instance)
            #expect(signIn.status == .ok)
            let tokens = signIn.json
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            #expect(tokens["id_token"] is String)
            #expect(tokens["scope"] as? String == "openid native")

            // An instance always authenticates with its own secret: PKCE or a refresh token alone is not enough.
            let withoutSecret = try await Flows.refresh(client, refresh, clientId: instance.clientId)
            #expect(withoutSecret.status == .unauthorized && withoutSecret.json["error"] as? String == "invalid_client")
            let second = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId, scope: "openid")
            let secondLocation = try #require(second.location)
            let anotherCode = try #require(queryItems(secondLocation)["code"])
            let exchangeWithoutSecret = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", anotherCode), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", instance.clientId), ("code_verifier", Flows.verifier)])
            #expect(exchangeWithoutSecret.status == .unauthorized && exchangeWithoutSecret.json["error"] as? String == "invalid_client")

            // The first sign-in bound the instance to alice's session.
            let stored = try #require(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId))
            #expect(stored.boundSubject != nil)
            #expect(stored.sessionId != nil)
            let validated = try await Flows.validate(client, access)
            #expect(validated.status == .ok)
            #expect(validated.json["id"] as? String == "alice")
            #expect(validated.json["audience"] as? String == instance.clientId)

            let relogin = try await InstanceFlows.relogin(client, instance)
            #expect(relogin.status == .ok)
            let reissued = try #require(relogin.json["access_token"] as? String)
            #expect(relogin.json["refresh_token"] == nil)
            #expect(relogin.json["id_token"] == nil)
            #expect(try await Flows.validate(client, reissued).json["id"] as? String == "alice")

            // Its refresh token rotates as any client's does, authenticated with its own secret.
            let rotated = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                                    headers: instance.basic)
            #expect(rotated.status == .ok)

            // Only the instance's own secret authenticates it.
            for secret in ["wrong", TestBroker.appSecret] {
                let refused = try await InstanceFlows.relogin(client, instance, secret: secret)
                #expect(refused.status == .unauthorized)
                #expect(refused.json["error"] as? String == "invalid_client")
            }

            let delete = try await client.execute(uri: instance.registrationPath, method: .delete,
                                                  headers: RegistrationTests.bearer(instance.registrationToken))
            #expect(delete.status == .noContent)
            let after = try await InstanceFlows.relogin(client, instance)
            #expect(after.status == .unauthorized)
            #expect(after.json["error"] as? String == "invalid_client")
            // DELETE revoked what the instance held.
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            #expect(try await Flows.validate(client, reissued).status == .unauthorized)
            let refreshAfter = try await client.postForm("/oauth/token", [
                ("grant_type", "refresh_token"), ("refresh_token", try #require(rotated.json["refresh_token"] as? String))],
                headers: instance.basic)
            #expect(refreshAfter.json["error"] as? String == "invalid_client")
        }
    }

    @Test("client_credentials: nobody signed in yet, session ended, configured clients, statement without the grant")
    func reloginRefusals() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let early = try await InstanceFlows.relogin(client, instance)
            #expect(early.status == .badRequest)
            #expect(early.json["error"] as? String == "invalid_grant")

            let tokens = try await InstanceFlows.signIn(client, instance).json
            // Revoking the refresh token ends the sign-in session: re-login stops working.
            let revoke = try await client.postForm("/oauth/revoke", [("token", try #require(tokens["refresh_token"] as? String))],
                                                   headers: instance.basic)
            #expect(revoke.status == .ok)
            let ended = try await InstanceFlows.relogin(client, instance)
            #expect(ended.json["error"] as? String == "invalid_grant")

            let configured = try await client.postForm("/oauth/token", [("grant_type", "client_credentials")],
                                                       headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
            #expect(configured.status == .badRequest)
            #expect(configured.json["error"] as? String == "unauthorized_client")

            let limited = try await InstanceFlows.register(client, broker: broker, claims: ["grant_types": ["authorization_code"]])
            #expect(try await InstanceFlows.relogin(client, limited).json["error"] as? String == "unauthorized_client")
            let password = try await client.postForm("/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "alicepw")],
                                                     headers: limited.basic)
            #expect(password.json["error"] as? String == "unauthorized_client")
        }
    }

    @Test("an instance stays with its first user; its redirect URIs are its own; scope is narrowed to the statement's")
    func bindingAndLimits() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker, claims: ["scope": "openid"])
            let alice = try await InstanceFlows.signIn(client, instance, scope: "openid native email")
            #expect(alice.status == .ok)
            #expect(alice.json["scope"] as? String == "openid")
            #expect(alice.json["css"] == nil)

            let bob = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId, username: "bob", password: "bobpw")
            #expect(bob.status == .found)
            let location = try #require(bob.location)
            #expect(queryItems(location)["error"] == "access_denied")
            #expect(queryItems(location)["code"] == nil)
            // The session bob's refused sign-in started is ended with the refusal, not left behind.
            #expect(try broker.liveSessionCount(userId: "bob") == 0)
            #expect(try broker.liveSessionCount(userId: "alice") == 1)

            // The auth service allows TestBroker.redirect, the instance's statement does not: no redirect at all.
            let foreign = try await client.get(InstanceFlows.authorizeQuery(clientId: instance.clientId, redirect: TestBroker.redirect,
                                                                            scope: "openid"))
            #expect(foreign.status == .badRequest)
            #expect(foreign.location == nil)
            let unknown = try await client.get(InstanceFlows.authorizeQuery(clientId: "dyn~CSI~nope", redirect: TestBroker.nativeRedirect,
                                                                            scope: "openid"))
            #expect(unknown.status == .badRequest)
            #expect(unknown.location == nil)
        }
    }

    @Test("an instance that revokes its refresh token is signed out (no client_credentials), while another app keeps the session")
    func instanceSignOutKeepsOtherApps() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let answer = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId)
            let sso = try #require(answer.cookies["idc_sso"])
            let location = try #require(answer.location)
            let code = try #require(queryItems(location)["code"])
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", instance.clientId), ("code_verifier", Flows.verifier)], headers: instance.basic).json
            #expect(try await InstanceFlows.relogin(client, instance).status == .ok)
            // The environment's own app joins the same sign-in through SSO.
            let silent = try await client.get("/oauth/auth?" + formEncode([
                ("client_id", TestBroker.appKey), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                ("prompt", "none"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]),
                headers: [.cookie: "idc_sso=\(sso)"])
            let silentLocation = try #require(silent.location)
            let appCode = try #require(queryItems(silentLocation)["code"])
            let app = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", appCode), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)]).json
            let appAccess = try #require(app["access_token"] as? String)

            let revoke = try await client.postForm("/oauth/revoke", [("token", tokens["refresh_token"] as! String)], headers: instance.basic)
            #expect(revoke.status == .ok)
            #expect(try await Flows.validate(client, tokens["access_token"] as! String).status == .unauthorized)
            let relogin = try await InstanceFlows.relogin(client, instance)
            #expect(relogin.status == .badRequest && relogin.json["error"] as? String == "invalid_grant")
            #expect(try await Flows.validate(client, appAccess).status == .ok)
        }
    }

    @Test("discovery advertises client_credentials and the registration endpoint")
    func discovery() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let document = try await client.get("/.well-known/openid-configuration").json
            #expect((document["grant_types_supported"] as? [String])?.contains("client_credentials") == true)
            #expect(document["registration_endpoint"] as? String == "http://127.0.0.1:8080/oauth/register")
            #expect((document["prompt_values_supported"] as? [String])?.contains("select_account") == true)
        }
    }
}
