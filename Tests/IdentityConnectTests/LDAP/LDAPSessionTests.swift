import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// Sessions at directories (docs/connectors/ldap.md, "Sessions: the re-check"): after the upstream
/// TTL (`recheckInterval`) the account is re-checked with the service bind; a deleted account ends
/// the session, an unreachable directory keeps it.
@Suite("ldap sessions: re-check, deletion, outage", .serialized, .enabled(if: LDAPPeer.available, LDAPPeer.skipReason))
struct LDAPSessionTests {
    @Test("an account deleted in the directory ends the session at the next re-check")
    func deletedAccountEndsSession() async throws {
        let clock = ManualClock(Date())
        let broker = try await LDAPPeer.broker(LDAPPeer.files(recheck: 60), clock: clock)
        // A user of this test's own, so that the test can run again on the same directory.
        let uid = "temp-\(UUID().uuidString.prefix(8).lowercased())"
        try LDAPPeer.admin("ldapadd", input: """
            dn: uid=\(uid),ou=people,\(LDAPPeer.base)
            objectClass: inetOrgPerson
            uid: \(uid)
            cn: Temporary
            sn: Temporary
            userPassword: temppw
            """)
        try await broker.withClient { client in
            let signIn = try await LDAPPeer.passwordGrant(client, uid, "temppw")
            #expect(signIn.status == .ok)
            let access = try #require(signIn.json["access_token"] as? String)
            let refresh = try #require(signIn.json["refresh_token"] as? String)
            try LDAPPeer.admin("ldapdelete", ["uid=\(uid),ou=people,\(LDAPPeer.base)"])
            // Within the upstream TTL nothing is asked of the directory.
            #expect(try await Flows.validate(client, access).status == .ok)
            clock.advance(61)
            let after = try await Flows.validate(client, access)
            #expect(after.status == .unauthorized)
            #expect(after.json["error"] as? String == "invalid_token")
            let refreshed = try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                                      ("client_id", "\(LDAPPeer.appKey).search")],
                                                      headers: basicAuth(LDAPPeer.appKey, LDAPPeer.secret))
            #expect(refreshed.status == .badRequest)
            #expect(refreshed.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("an account that stops matching userFilter (locked by the site's own condition) ends the session at the next re-check")
    func filteredOutAccountEndsSession() async throws {
        let clock = ManualClock(Date())
        let broker = try await LDAPPeer.broker(LDAPPeer.files(recheck: 60), clock: clock)
        let uid = "lock-\(UUID().uuidString.prefix(8).lowercased())"
        let dn = "uid=\(uid),ou=people,\(LDAPPeer.base)"
        try LDAPPeer.admin("ldapadd", input: """
            dn: \(dn)
            objectClass: inetOrgPerson
            uid: \(uid)
            cn: Lockable
            sn: Lockable
            userPassword: lockpw
            """)
        defer { try? LDAPPeer.admin("ldapdelete", [dn]) }
        try await broker.withClient { client in
            let signIn = try await LDAPPeer.passwordGrant(client, uid, "lockpw", service: "filtered")
            #expect(signIn.status == .ok)
            let access = try #require(signIn.json["access_token"] as? String)
            clock.advance(61)
            #expect(try await Flows.validate(client, access).status == .ok)   // still matches: the re-check keeps it
            try LDAPPeer.admin("ldapmodify", input: """
                dn: \(dn)
                changetype: modify
                add: description
                description: locked
                """)
            clock.advance(61)
            #expect(try await Flows.validate(client, access).status == .unauthorized)
            #expect(try await LDAPPeer.passwordGrant(client, uid, "lockpw", service: "filtered").status == .badRequest)
        }
    }

    @Test("slapd stopped mid-session: temporarily_unavailable and the session is kept; back up, it works again")
    func outageKeepsSession() async throws {
        let directory = "/tmp/idconnect-peers/ldap-outage"
        let env = ["LDAP_DIR": directory, "LDAP_PORT": "10489", "LDAPS_PORT": "10736"]
        let start = LDAPPeer.repository.appendingPathComponent("scripts/peers/ldap-start.sh").path
        let stop = LDAPPeer.repository.appendingPathComponent("scripts/peers/ldap-stop.sh").path
        _ = await LDAPPeer.runScriptOffPool(stop, environment: env)   // one left over by an interrupted run
        try #require(await LDAPPeer.runScriptOffPool(start, environment: env) == 0)
        defer {
            _ = LDAPPeer.runScript(stop, environment: env)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let clock = ManualClock(Date())
        let files = LDAPPeer.files(url: "ldap://127.0.0.1:10489", ldapsURL: "ldaps://127.0.0.1:10736",
                                   caFile: directory + "/tls/ca.pem", recheck: 60, timeout: 2)
        let broker = try await LDAPPeer.broker(files, clock: clock)
        try await broker.withClient { client in
            let signIn = try await LDAPPeer.passwordGrant(client, "alice", "alicepw")
            #expect(signIn.status == .ok)
            let access = try #require(signIn.json["access_token"] as? String)
            var refresh = try #require(signIn.json["refresh_token"] as? String)

            // A re-check while the directory is up keeps the session and its groups.
            clock.advance(61)
            let rechecked = try await Flows.validate(client, access)
            #expect(rechecked.status == .ok)
            #expect((rechecked.json["groups"] as? [String])?.contains("admins") == true)

            try #require(await LDAPPeer.runScriptOffPool(stop, environment: env) == 0)
            clock.advance(61)
            let down = try await Flows.validate(client, access)
            #expect(down.status == .serviceUnavailable)
            #expect(down.json["error"] as? String == "temporarily_unavailable")
            let refreshDown = try await refreshGrant(client, refresh)
            #expect(refreshDown.status == .serviceUnavailable)
            #expect(refreshDown.json["error"] as? String == "temporarily_unavailable")
            let loginDown = try await LDAPPeer.passwordGrant(client, "bob", "bobpw")
            #expect(loginDown.status == .serviceUnavailable)
            #expect(loginDown.json["error"] as? String == "temporarily_unavailable")

            try #require(await LDAPPeer.runScriptOffPool(start, ["--restart"], environment: env) == 0)
            let back = try await Flows.validate(client, access)
            #expect(back.status == .ok)
            let refreshed = try await refreshGrant(client, refresh)
            #expect(refreshed.status == .ok)
            refresh = try #require(refreshed.json["refresh_token"] as? String)
            #expect(try await LDAPPeer.passwordGrant(client, "bob", "bobpw").status == .ok)

            // A restart nobody noticed: the pooled connections are dead; the next sign-in replaces them.
            try #require(await LDAPPeer.runScriptOffPool(stop, environment: env) == 0)
            try #require(await LDAPPeer.runScriptOffPool(start, ["--restart"], environment: env) == 0)
            #expect(try await LDAPPeer.passwordGrant(client, "bob", "bobpw").status == .ok)
        }
    }

    private func refreshGrant(_ client: any TestClientProtocol, _ token: String) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token),
                                                   ("client_id", "\(LDAPPeer.appKey).search")],
                                  headers: basicAuth(LDAPPeer.appKey, LDAPPeer.secret))
    }
}
