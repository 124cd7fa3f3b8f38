import Foundation
import HummingbirdTesting
@testable import LDAPClient
@testable import LDAPConnector
import Testing

/// docs/security.md, rule 17: the account whose attributes and groups are used is the account that
/// bound.
@Suite("Security: directory identity")
struct DirectoryIdentitySecurityTests {
    @Test("Who-am-I answers are compared with the entry found: DN forms, u: forms, mismatches")
    func matching() throws {
        let entry = LDAPEntry(dn: "CN=Bob Builder,CN=Users,DC=corp,DC=example,DC=org",
                              attributes: ["samaccountname": ["bob"], "uid": ["bob"]])
        #expect(DirectoryIdentity.matches("dn:cn=bob builder, cn=Users,dc=corp,dc=example,dc=org", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        #expect(DirectoryIdentity.matches("u:CORP\\bob", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        #expect(DirectoryIdentity.matches("u:CORP\\BOB", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        #expect(!DirectoryIdentity.matches("u:CORP\\eve", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        #expect(!DirectoryIdentity.matches("dn:CN=Eve,CN=Users,DC=corp,DC=example,DC=org", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        #expect(!DirectoryIdentity.matches("something-else", entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
        // No answer (an unsupported extended operation): the read of the bound DN is the check.
        #expect(DirectoryIdentity.matches(nil, entry: entry, kind: .activeDirectory, userIdAttribute: "sAMAccountName"))
    }

    @Test("AD: a bind name (UPN) of one account and a lookup (sAMAccountName) naming another: refused, never signed in as the other",
          .enabled(if: ADPeer.available && ADPeer.smbConf != nil, "IDCONNECT_AD_* / IDCONNECT_AD_SMBCONF unset: run scripts/peers/samba-ad-start.sh as root"))
    func upnCollision() async throws {
        let suffix = String(UUID().uuidString.prefix(6)).lowercased()
        let victim = "vic\(suffix)", attacker = "eve\(suffix)"
        try await ADPeer.sambaTool(["user", "create", victim, "Victim-pw1", "--mail-address=\(victim)@corp.example.org"])
        try await ADPeer.sambaTool(["user", "create", attacker, "Eve-pw1"])
        defer {
            Task {
                try? await ADPeer.sambaTool(["user", "delete", victim])
                try? await ADPeer.sambaTool(["user", "delete", attacker])
            }
        }
        // The attacker's account carries the victim's name under a UPN suffix of the forest
        // (Samba refuses a UPN equal to another account's implicit sAMAccountName@realm).
        for (user, upn) in [(attacker, "\(victim)@example.org")] {
            let ldif = "dn: CN=\(user),CN=Users,\(ADPeer.base)\nchangetype: modify\nreplace: userPrincipalName\nuserPrincipalName: \(upn)\n"
            let status = try await offCooperativePool {
                try LDAPPeer.run("ldapmodify", ["-x", "-H", ADPeer.url ?? "", "-D", "Administrator@corp.example.org",
                                                "-w", "Adm1n!Passw0rd"], input: ldif)
            }
            #expect(status == 0, "ldapmodify \(user) failed")
        }
        // Bare usernames get the UPN suffix example.org (options.domain), then the account is
        // looked up by sAMAccountName.
        var files = ADPeer.files()
        files["environments/ad.yaml"] = files["environments/ad.yaml"]!.replacingOccurrences(of: "domain: corp.example.org,",
                                                                                              with: "domain: example.org,")
        let broker = try await TestBroker.make(files: files, registry: LDAPPeer.registry)
        try await broker.withClient { client in
            // The bare name binds as the attacker (its UPN) but would read the victim's account.
            // With a service account (found by name, bound by DN) and without one (bound by UPN,
            // confirmed by binding the DN read): refused either way.
            for service in ["corp", "userbind"] {
                let takeover = try await ADPeer.passwordGrant(client, victim, "Eve-pw1", service: service)
                #expect(takeover.status == .badRequest, "\(service): \(takeover.json)")
                #expect(takeover.json["error"] as? String == "access_denied")
                #expect(takeover.json["access_token"] == nil)
            }
            // The victim still signs in by DOMAIN\name.
            let own = try await ADPeer.passwordGrant(client, "CORP\\\(victim)", "Victim-pw1")
            #expect(own.status == .ok, "\(own.json)")
        }
    }
}
