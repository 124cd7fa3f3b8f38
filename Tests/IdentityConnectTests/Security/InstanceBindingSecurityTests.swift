import Foundation
import HummingbirdTesting
import StoreContracts
import Testing

/// docs/security.md, rule 1: an app instance is bound to a user only when it redeems a code of that
/// user with its own secret (and PKCE); an authorization that merely issues a code binds nothing.
@Suite("Security: app instances bind only at code redemption")
struct InstanceBindingSecurityTests {
    @Test("attack chain: a stranger's instance, opened silently in the victim's signed-in browser, gets nothing")
    func attackChain() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            // The victim signs in to the environment's web app; the browser keeps an SSO cookie.
            let victim = try await InstanceFlows.browserSignIn(client, clientId: TestBroker.appKey, redirect: TestBroker.redirect,
                                                               scope: "openid")
            let sso = try #require(victim.cookies["idc_sso"])
            // The attacker registers an instance (the initial access token and statement ship in the app)…
            let attacker = try await InstanceFlows.register(client, broker: broker)
            // …and gets the victim's browser to open the instance's authorization with prompt=none.
            let silent = try await client.get(InstanceFlows.authorizeQuery(clientId: attacker.clientId, redirect: TestBroker.nativeRedirect,
                                                                          scope: "openid native", prompt: "none"),
                                              headers: [.cookie: "idc_sso=\(sso)"])
            #expect(silent.status == .found)
            // SSO still works (the code goes to the app's own redirect URI on the victim's device)…
            #expect(queryItems(try #require(silent.location))["code"] != nil)
            // …but issuing it bound nothing.
            let stored = try #require(try await broker.engine.storage.registeredClients.registeredClient(id: attacker.clientId))
            #expect(stored.boundSubject == nil)
            #expect(stored.sessionId == nil)
            // client_credentials gives the attacker neither the victim's tokens nor a css value.
            let relogin = try await InstanceFlows.relogin(client, attacker, extra: [("scope", "openid native")])
            #expect(relogin.status == .badRequest)
            #expect(relogin.json["error"] as? String == "invalid_grant")
            #expect(relogin.json["access_token"] == nil && relogin.json["css"] == nil)
        }
    }

    @Test("a legitimate instance binds when it redeems its code with its secret and PKCE, then re-logs in")
    func legitimateInstance() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            let answer = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId)
            let code = try redirectCode(answer)
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId)?.boundSubject == nil)
            // A redemption that fails PKCE binds nothing and keeps the code for its holder.
            let wrong = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", instance.clientId), ("code_verifier", String(repeating: "x", count: 43))], headers: instance.basic)
            #expect(wrong.json["error"] as? String == "invalid_grant")
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId)?.boundSubject == nil)
            let tokens = try await client.postForm("/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                ("client_id", instance.clientId), ("code_verifier", Flows.verifier)], headers: instance.basic)
            #expect(tokens.status == .ok)
            #expect(try await broker.engine.storage.registeredClients.registeredClient(id: instance.clientId)?.boundSubject != nil)
            let relogin = try await InstanceFlows.relogin(client, instance)
            #expect(relogin.status == .ok)
            #expect(try await Flows.validate(client, try #require(relogin.json["access_token"] as? String)).json["id"] as? String == "alice")
        }
    }

    @Test("two users' codes redeemed at once by one unbound instance: exactly one binds", arguments: StoreBackend.allCases)
    func bindingRace(_ backend: StoreBackend) async throws {
        let broker = try await RegistrationTests.make(backend: backend)
        try await broker.withClient(network: true) { client in
            let instance = try await InstanceFlows.register(client, broker: broker)
            var codes: [String] = []
            for (user, password) in [("alice", "alicepw"), ("bob", "bobpw")] {
                let answer = try await InstanceFlows.browserSignIn(client, clientId: instance.clientId, username: user, password: password)
                codes.append(try redirectCode(answer))
            }
            let port = try #require(client.port)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for code in codes {
                    group.addTask {
                        try await ParallelClient.postForm(port: port, "/oauth/token", [
                            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.nativeRedirect),
                            ("client_id", instance.clientId), ("code_verifier", Flows.verifier)],
                            basic: (instance.clientId, instance.secret)).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 400])
        }
    }
}
