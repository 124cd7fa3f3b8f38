import Foundation
import IdentityApp
import IdentityCore
@testable import LDAPClient
@testable import LDAPConnector
import Testing

@Suite("LDAP escaping, AD username forms and error codes, options validation")
struct LDAPUnitTests {
    @Test("RFC 4515 filter values: metacharacters, NUL and non-ASCII bytes are hex-escaped")
    func filterEscaping() {
        #expect(LDAPEscaping.filterValue("alice") == "alice")
        #expect(LDAPEscaping.filterValue("*") == "\\2a")
        #expect(LDAPEscaping.filterValue(")(uid=*") == "\\29\\28uid=\\2a")
        #expect(LDAPEscaping.filterValue("a\\00") == "a\\5c00")
        #expect(LDAPEscaping.filterValue("a\u{0}b") == "a\\00b")
        #expect(LDAPEscaping.filterValue("é") == "\\c3\\a9")
    }

    @Test("RFC 4514 DN values: specials, leading/trailing space, leading # and control bytes are escaped")
    func dnEscaping() {
        #expect(LDAPEscaping.dnValue("alice") == "alice")
        #expect(LDAPEscaping.dnValue("uid=x,ou=y") == "uid\\=x\\,ou\\=y")
        #expect(LDAPEscaping.dnValue(" #a+b;c<d>\"e\\ ") == "\\ #a\\+b\\;c\\<d\\>\\\"e\\\\\\ ")
        #expect(LDAPEscaping.dnValue("#x") == "\\#x")
        #expect(LDAPEscaping.dnValue("a\u{0}") == "a\\00")
        #expect(LDAPEscaping.dnValue("José") == "José")
    }

    @Test("placeholders are filled in one pass: a value holding another placeholder stays literal")
    func fillOnePass() {
        // Filling placeholder by placeholder turned either value into the other one, whatever the order.
        #expect(LDAPEscaping.fill("(&(a={a})(b={b}))", ["a": "{b}", "b": "{a}"]) == "(&(a={b})(b={a}))")
        #expect(LDAPEscaping.fill("(uid={username})", ["username": "x"]) == "(uid=x)")
        #expect(LDAPEscaping.fill("{unknown}{username}{", ["username": "u"]) == "{unknown}u{")
        #expect(LDAPEscaping.fill("{{username}}", ["username": "u"]) == "{u}")
    }

    @Test("group names are the first RDN value of memberOf DNs")
    func firstRDN() {
        #expect(LDAPEscaping.firstRDNValue("cn=admins,ou=groups,dc=example,dc=org") == "admins")
        #expect(LDAPEscaping.firstRDNValue("CN=Domain Users,CN=Users,DC=corp") == "Domain Users")
        #expect(LDAPEscaping.firstRDNValue("cn=a\\,b,dc=x") == "a,b")
        #expect(LDAPEscaping.firstRDNValue("cn=caf\\c3\\a9,dc=x") == "café")
        #expect(LDAPEscaping.firstRDNValue("garbage") == nil)
    }

    @Test("AD usernames: bare, UPN and DOMAIN\\user forms bind and look up as AD expects")
    func adUsernames() {
        let bare = ActiveDirectory.login(for: "alice", domain: "corp.example.org", netbiosDomain: "CORP")
        #expect(bare == .init(bindName: "alice@corp.example.org", lookupFilter: "(sAMAccountName=alice)"))
        let upn = ActiveDirectory.login(for: "alice@corp.example.org", domain: nil, netbiosDomain: "CORP")
        #expect(upn == .init(bindName: "alice@corp.example.org", lookupFilter: "(userPrincipalName=alice@corp.example.org)"))
        let netbios = ActiveDirectory.login(for: "corp\\bob", domain: "corp.example.org", netbiosDomain: "CORP")
        #expect(netbios == .init(bindName: "corp\\bob", lookupFilter: "(sAMAccountName=bob)"))
        #expect(ActiveDirectory.login(for: "OTHER\\bob", domain: nil, netbiosDomain: "CORP") == nil)
        #expect(ActiveDirectory.login(for: "\\bob", domain: nil, netbiosDomain: "CORP") == nil)
        let noUPN = ActiveDirectory.login(for: "bob*", domain: nil, netbiosDomain: "CORP")
        #expect(noUPN == .init(bindName: "CORP\\bob*", lookupFilter: "(sAMAccountName=bob\\2a)"))
    }

    @Test("AD bind data codes become clear login-page messages; unknown user reads like a wrong password",
          arguments: [("52e", LoginRejection.Reason.invalidCredentials), ("525", .invalidCredentials), ("530", .other),
                      ("531", .other), ("532", .passwordExpired), ("533", .accountDisabled), ("701", .accountDisabled),
                      ("773", .mustChangePassword), ("775", .accountLocked), ("zzz", .invalidCredentials)])
    func adDataCodes(code: String, reason: LoginRejection.Reason) {
        let diagnostic = "80090308: LdapErr: DSID-0C09041C, comment: AcceptSecurityContext error, data \(code), v4563"
        let parsed = ActiveDirectory.dataCode(in: diagnostic)
        #expect(ActiveDirectory.rejection(forDataCode: parsed).reason == reason)
        #expect(!ActiveDirectory.rejection(forDataCode: parsed).message.isEmpty)
    }

    @Test("userAccountControl bit 2 marks a disabled account")
    func disabledFlag() {
        #expect(ActiveDirectory.isDisabled(LDAPEntry(dn: "x", attributes: ["useraccountcontrol": ["514"]])))
        #expect(!ActiveDirectory.isDisabled(LDAPEntry(dn: "x", attributes: ["useraccountcontrol": ["512"]])))
    }

    @Test("ldap and active-directory options: unknown, missing and contradictory keys are reported with their paths")
    func optionsValidation() throws {
        func problems(_ provider: String) throws -> [String] {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-ldapcfg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            try """
            environments:
              - appKey: kid_x
                authServices:
                  - id: s1
                    redirectUri: [ "https://a.example/cb" ]
                    provider: \(provider)
            """.write(to: root.appendingPathComponent("x.yaml"), atomically: true, encoding: .utf8)
            do {
                _ = try BrokerBootstrap.loadConfig(directory: root.path, registry: LDAPPeer.registry, environment: [:])
                return []
            } catch let problems as ConfigProblems {
                return problems.problems.map(\.description)
            }
        }
        let typo = try problems("{ type: ldap, remoteService: \"ldap://127.0.0.1\", options: { bindDnTemplate: \"uid={username},dc=x\", userFiltr: x } }")
        #expect(typo.contains { $0.contains("options.userFiltr") && $0.contains("unknown key") })
        let neither = try problems("{ type: ldap, remoteService: \"ldap://127.0.0.1\", options: { baseDn: \"dc=x\" } }")
        #expect(neither.contains { $0.contains("authentication") && $0.contains("bindDnTemplate") })
        let scheme = try problems("{ type: ldap, remoteService: \"http://127.0.0.1\", options: { bindDnTemplate: \"uid={username}\" } }")
        #expect(scheme.contains { $0.contains("remoteService") })
        let both = try problems("{ type: ldap, remoteService: \"ldaps://h\", options: { bindDnTemplate: \"uid={username}\", startTls: true } }")
        #expect(both.contains { $0.contains("startTls") })
        let template = try problems("{ type: ldap, remoteService: \"ldap://h\", options: { bindDnTemplate: \"uid=x\" } }")
        #expect(template.contains { $0.contains("bindDnTemplate") && $0.contains("{username}") })
        let ad = try problems("{ type: active-directory, remoteService: \"ldap://h\", options: { bindDnTemplate: x } }")
        #expect(ad.contains { $0.contains("options.baseDn") && $0.contains("required") })
        #expect(ad.contains { $0.contains("options.bindDnTemplate") && $0.contains("unknown key") })
        #expect(ad.contains { $0.contains("options.domain") })
        let good = try problems("{ type: active-directory, remoteService: \"ldaps://h\", options: { baseDn: \"dc=x\", domain: x.org } }")
        #expect(good.isEmpty, "\(good)")
        // A Kinvey export's ldap-style filter on an AD service would search for the literal "{username}".
        let exported = try problems("{ type: active-directory, remoteService: \"ldaps://h\", options: { baseDn: \"dc=x\", domain: x.org, userFilter: \"(sAMAccountName={username})\" } }")
        #expect(exported.contains { $0.contains("options.userFilter") && $0.contains("extra condition") }, "\(exported)")
    }
}
