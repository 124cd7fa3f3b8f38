import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

@Suite("ldap connector against a real slapd", .enabled(if: LDAPPeer.available, LDAPPeer.skipReason))
struct LDAPConnectorTests {
    @Test("the hosted login page signs alice in; email, name and groups reach the id_token")
    func loginPage() async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            let location = try await Flows.browserLogin(client, clientId: "\(LDAPPeer.appKey).search",
                                                        extra: [("scope", "openid email profile groups"), ("state", "s"), ("nonce", "n")])
            #expect(location.hasPrefix(TestBroker.redirect + "?"))
            let response = try await LDAPPeer.exchange(client, location, service: "search", verifier: Flows.verifier)
            #expect(response.status == .ok)
            let claims = jwtPayload(try #require(response.json["id_token"] as? String))
            #expect(claims["email"] as? String == "alice@example.org")
            #expect(claims["name"] as? String == "Alice Liddell")
            // admins and developers through memberOf, staff (posixGroup) through the group search.
            #expect(Set(claims["groups"] as? [String] ?? []) == ["admins", "developers", "staff"])
        }
    }

    @Test("the automated grant works over plain search+bind, direct bind, StartTLS and ldaps",
          arguments: ["search", "direct", "starttls", "ldaps"])
    func automatedGrant(service: String) async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client, clientId: "\(LDAPPeer.appKey).\(service)",
                                                          username: "bob", password: "bobpw")
            #expect(queryItems(location)["error"] == nil, "\(location)")
            let tokens = try await LDAPPeer.exchange(client, location, service: service)
            #expect(tokens.status == .ok)
            let access = try #require(tokens.json["access_token"] as? String)
            let view = try await Flows.validate(client, access)
            #expect(view.status == .ok)
            #expect(view.json["id"] as? String == "bob")
            #expect((view.json["groups"] as? [String])?.contains("developers") == true)
            let headers = try #require(view.json["datalink_headers"] as? [String: String])
            #expect(headers["X-User-Email"] == "bob@example.org")
            #expect(headers["X-User-Groups"]?.contains("developers") == true)
            #expect(view.json["client_token"] as? String == Data("uid=bob,ou=people,dc=example,dc=org".utf8).base64EncodedString())
        }
    }

    @Test("the password grant issues tokens with groups in the id_token")
    func passwordGrant() async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            let response = try await LDAPPeer.passwordGrant(client, "alice", "alicepw")
            #expect(response.status == .ok)
            #expect(response.json["refresh_token"] is String)
            let claims = jwtPayload(try #require(response.json["id_token"] as? String))
            #expect((claims["groups"] as? [String])?.contains("admins") == true)
        }
    }

    @Test("a wrong password and an unknown user get the same access_denied", arguments: ["search", "direct", "ldaps"])
    func wrongPasswordAndUnknownUser(service: String) async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            let wrong = try await LDAPPeer.passwordGrant(client, "alice", "not-her-password", service: service)
            let unknown = try await LDAPPeer.passwordGrant(client, "mallory", "whatever", service: service)
            #expect(wrong.status == .badRequest)
            #expect(wrong.json["error"] as? String == "access_denied")
            #expect(unknown.status == .badRequest)
            #expect(unknown.json["error"] as? String == "access_denied")
            #expect(wrong.json["error_description"] as? String == unknown.json["error_description"] as? String)
            let page = try await Flows.automatedLogin(client, clientId: "\(LDAPPeer.appKey).\(service)",
                                                      username: "bob", password: "nope")
            #expect(queryItems(page)["error"] == "access_denied")
            #expect(queryItems(page)["error_description"] == "The username or password is incorrect.")
        }
    }

    @Test("an empty password is refused before any bind, even when the directory is down")
    func emptyPassword() async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            for service in ["search", "direct", "dead"] {
                let response = try await LDAPPeer.passwordGrant(client, "alice", "", service: service)
                #expect(response.status == .badRequest, "\(service)")
                #expect(response.json["error"] as? String == "access_denied" || response.json["error"] as? String == "invalid_request",
                        "\(service): \(response.json)")
            }
            // The same unreachable directory with a password: an outage, so the refusal above came first.
            let down = try await LDAPPeer.passwordGrant(client, "alice", "alicepw", service: "dead")
            #expect(down.status == .serviceUnavailable)
            #expect(down.json["error"] as? String == "temporarily_unavailable")
        }
    }

    @Test("filter and DN injection attempts are refused, never a wildcard match, never a 500",
          arguments: ["*", ")(uid=*", "alice)(uid=*", "*)(|(uid=*", "al*", "\\00", "alice\\00", "alice\u{0}",
                      "uid=alice,ou=people", "alice,ou=people", String(repeating: "a", count: 5000)])
    func injection(username: String) async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            for service in ["search", "direct"] {
                for password in ["alicepw", "*", String(repeating: "p", count: 5000)] {
                    let response = try await LDAPPeer.passwordGrant(client, username, password, service: service)
                    #expect(response.status == .badRequest || response.status == .tooManyRequests,
                            "\(service) \(username.prefix(40)): \(response.status)")
                    #expect(response.json["access_token"] == nil)
                }
            }
        }
    }

    @Test("a certificate the configured CA does not sign is an outage (temporarily_unavailable), not a sign-in")
    func untrustedCertificate() async throws {
        let broker = try await LDAPPeer.broker()
        try await broker.withClient { client in
            let response = try await LDAPPeer.passwordGrant(client, "alice", "alicepw", service: "untrusted")
            #expect(response.status == .serviceUnavailable)
            #expect(response.json["error"] as? String == "temporarily_unavailable")
        }
    }
}
