import Foundation
import HummingbirdTesting
import IdentityCore
import Testing

/// The Samba AD domain controller started by scripts/peers/samba-ad-start.sh (root only).
enum ADPeer {
    static let environment = ProcessInfo.processInfo.environment
    static var url: String? { environment["IDCONNECT_AD_URL"] }
    static var ldapsURL: String? { environment["IDCONNECT_AD_LDAPS_URL"] }
    static var caFile: String? { environment["IDCONNECT_AD_CA"] }
    static var available: Bool { url != nil && ldapsURL != nil && caFile != nil }
    static let skipReason: Comment =
        "IDCONNECT_AD_URL / IDCONNECT_AD_LDAPS_URL / IDCONNECT_AD_CA unset: run scripts/peers/samba-ad-start.sh as root (scripts/test.sh does)"
    static let base = "DC=corp,DC=example,DC=org"
    static let appKey = "kid_ad"
    static let secret = "ad-env-secret"

    static var smbConf: String? { environment["IDCONNECT_AD_SMBCONF"] }

    /// Runs samba-tool against the DC's own database (user create / disable / delete), off the
    /// cooperative pool: it takes seconds, and blocking one of the two cooperative threads that
    /// long stalled every other test in the process past its HTTP read timeout.
    static func sambaTool(_ arguments: [String]) async throws {
        let smbConf = smbConf ?? ""
        let status = try await offCooperativePool { try LDAPPeer.run("samba-tool", arguments + ["-s", smbConf]) }
        #expect(status == 0, "samba-tool \(arguments) failed with \(status)")
    }

    static func files(recheck: Int = 300) -> [String: String] {
        var files = TestBroker.defaultConfig()
        func service(_ id: String, _ remote: String, auth: Bool, _ options: String) -> String {
            """
                  - id: \(id)
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    provider:
                      type: active-directory
                      remoteService: \(remote)
            \(auth ? "          authentication: { username: svc-ldap@corp.example.org, password: svcpw }" : "")
                      options: { baseDn: "\(base)", domain: corp.example.org, netbiosDomain: CORP, timeout: 5, recheckInterval: \(recheck), \(options) }
                      allowedAttributes: [ id, audience, email, name, groups ]
                      datalinkHeaderMapping: { groups: X-User-Groups }
            """
        }
        files["environments/ad.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            defaultAuthService: corp
            authServices:
        \(service("corp", url ?? "", auth: true, "nestedGroups: true"))
        \(service("userbind", url ?? "", auth: false, "memberOf: true"))
        \(service("secure", ldapsURL ?? "", auth: true, "caFile: \"\(caFile ?? "")\""))
        \(service("starttls", url ?? "", auth: true, "startTls: true, caFile: \"\(caFile ?? "")\""))
        """
        return files
    }

    static func passwordGrant(_ client: any TestClientProtocol, _ username: String, _ password: String,
                              service: String = "corp") async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", "\(appKey).\(service)"),
                                                   ("username", username), ("password", password), ("scope", "openid email profile groups")],
                                  headers: basicAuth(appKey, secret))
    }
}

@Suite("active-directory connector against a Samba AD DC", .enabled(if: ADPeer.available, ADPeer.skipReason))
struct ActiveDirectoryTests {
    @Test("UPN, DOMAIN\\user and bare usernames sign in; groups include nested ones through LDAP_MATCHING_RULE_IN_CHAIN",
          arguments: ["alice", "alice@corp.example.org", "CORP\\alice"])
    func signIn(username: String) async throws {
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            let response = try await ADPeer.passwordGrant(client, username, "alicepw")
            #expect(response.status == .ok, "\(response.json)")
            let claims = jwtPayload(try #require(response.json["id_token"] as? String))
            #expect(claims["email"] as? String == "alice@corp.example.org")
            #expect(claims["name"] as? String == "Alice Liddell")
            let groups = Set(claims["groups"] as? [String] ?? [])
            #expect(groups.isSuperset(of: ["developers", "admins", "engineering"]), "\(groups)")
            let view = try await Flows.validate(client, try #require(response.json["access_token"] as? String))
            #expect(view.json["id"] as? String == "alice")
        }
    }

    @Test("the login page and the automated grant sign bob in as CORP\\bob, over plain LDAP and LDAPS",
          arguments: ["userbind", "secure"])
    func loginPageAndAutomated(service: String) async throws {
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            let page = try await Flows.browserLogin(client, clientId: "\(ADPeer.appKey).\(service)", username: "CORP\\bob", password: "bobpw")
            #expect(queryItems(page)["code"] != nil, "\(page)")
            let automated = try await Flows.automatedLogin(client, clientId: "\(ADPeer.appKey).\(service)", username: "bob", password: "bobpw")
            #expect(queryItems(automated)["code"] != nil, "\(automated)")
        }
    }

    @Test("refused accounts get a clear message on the login page",
          arguments: [("alice", "wrong", "The username or password is incorrect."),
                      ("nobody", "x", "The username or password is incorrect."),
                      ("carol", "carolpw", "This account is disabled. Contact your administrator."),
                      ("dave", "davepw", "The password must be changed before signing in."),
                      ("erin", "erinpw", "This account is locked. Try again later or contact your administrator."),
                      ("frank", "frankpw", "This account has expired. Contact your administrator."),
                      ("OTHER\\alice", "alicepw", "The username or password is incorrect.")])
    func refusals(username: String, password: String, message: String) async throws {
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client, clientId: "\(ADPeer.appKey).corp", username: username, password: password)
            #expect(queryItems(location)["error"] == "access_denied")
            #expect(queryItems(location)["error_description"] == message)
            let token = try await ADPeer.passwordGrant(client, username, password)
            #expect(token.status == .badRequest)
            #expect(token.json["error"] as? String == "access_denied")
        }
    }

    @Test("StartTLS on the plain port: the DC's certificate is checked against caFile, then alice signs in")
    func startTLS() async throws {
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            let signIn = try await ADPeer.passwordGrant(client, "alice", "alicepw", service: "starttls")
            #expect(signIn.status == .ok, "\(signIn.text)")
            let access = try #require(signIn.json["access_token"] as? String)
            #expect(try await Flows.validate(client, access).json["id"] as? String != nil)
        }
    }

    @Test("filter and DN injection through every username form is refused by the DC path, never a match, never a 5xx")
    func injection() async throws {
        let usernames = ["*", "a*", "*)(sAMAccountName=*", "alice)(|(objectClass=*", "alice*)", "CORP\\*", "*@corp.example.org",
                         "alice\u{0}", "alice,DC=corp", "\\2a", "(&)", String(repeating: "a", count: 600)]
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            for username in usernames {
                for service in ["corp", "userbind"] {
                    let answer = try await ADPeer.passwordGrant(client, username, "alicepw", service: service)
                    #expect(answer.status.code < 500, "\(service) \(username.debugDescription): \(answer.status)")
                    #expect(answer.json["access_token"] == nil, "\(service) signed in with \(username.debugDescription)")
                }
            }
        }
    }

    @Test("an empty password never reaches the domain controller")
    func emptyPassword() async throws {
        let broker = try await TestBroker.make(files: ADPeer.files(), registry: LDAPPeer.registry)
        try await broker.withClient { client in
            let response = try await ADPeer.passwordGrant(client, "alice", "", service: "userbind")
            #expect(response.status == .badRequest)
            #expect(response.json["access_token"] == nil)
        }
    }
}

@Suite("active-directory re-check: disabled and deleted accounts end the session",
       .enabled(if: ADPeer.available && ADPeer.smbConf != nil, "IDCONNECT_AD_* / IDCONNECT_AD_SMBCONF unset: run scripts/peers/samba-ad-start.sh as root"))
struct ActiveDirectoryRecheckTests {
    @Test("an account disabled or deleted in AD ends the session at the next re-check", arguments: ["disable", "delete"])
    func recheck(change: String) async throws {
        let user = "tmp\(change)\(UUID().uuidString.prefix(6).lowercased())"
        try await ADPeer.sambaTool(["user", "create", user, "tmppw", "--mail-address=\(user)@corp.example.org"])
        let clock = ManualClock(Date())
        let broker = try await TestBroker.make(files: ADPeer.files(recheck: 60), registry: LDAPPeer.registry, clock: clock)
        try await broker.withClient { client in
            let signIn = try await ADPeer.passwordGrant(client, user, "tmppw")
            #expect(signIn.status == .ok, "\(signIn.json)")
            let access = try #require(signIn.json["access_token"] as? String)
            clock.advance(61)
            #expect(try await Flows.validate(client, access).status == .ok)
            try await ADPeer.sambaTool(["user", change, user])
            #expect(try await Flows.validate(client, access).status == .ok)   // within the re-check interval
            clock.advance(61)
            let after = try await Flows.validate(client, access)
            #expect(after.status == .unauthorized)
            #expect(after.json["error"] as? String == "invalid_token")
        }
        if change == "disable" { try? await ADPeer.sambaTool(["user", "delete", user]) }
    }
}
