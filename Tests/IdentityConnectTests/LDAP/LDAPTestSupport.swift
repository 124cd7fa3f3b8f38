import Foundation
import HummingbirdTesting
import IdentityCore
import LDAPConnector
import StaticConnector
import Testing

/// The slapd started by scripts/peers/ldap-start.sh (scripts/test.sh exports these variables).
enum LDAPPeer {
    static let environment = ProcessInfo.processInfo.environment
    static var url: String? { environment["IDCONNECT_LDAP_URL"] }
    static var ldapsURL: String? { environment["IDCONNECT_LDAPS_URL"] }
    static var caFile: String? { environment["IDCONNECT_LDAP_CA"] }
    static var available: Bool { url != nil && ldapsURL != nil && caFile != nil }
    static let skipReason: Comment =
        "IDCONNECT_LDAP_URL / IDCONNECT_LDAPS_URL / IDCONNECT_LDAP_CA unset: run scripts/peers/ldap-start.sh (scripts/test.sh does)"

    static let base = "dc=example,dc=org"
    static let appKey = "kid_ldap"
    static let secret = "ldap-env-secret"
    static let registry = ConnectorRegistry([StaticConnectorFactory(), LDAPConnectorFactory()])

    /// The repository root, to run the peer scripts from tests.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A broker whose `kid_ldap` environment has one auth service per way of reaching slapd.
    static func files(url: String = LDAPPeer.url ?? "", ldapsURL: String = LDAPPeer.ldapsURL ?? "",
                      caFile: String = LDAPPeer.caFile ?? "", recheck: Int = 300, timeout: Int = 3) -> [String: String] {
        var files = TestBroker.defaultConfig()
        func service(_ id: String, _ remote: String, auth: Bool = true, _ options: String) -> String {
            """
                  - id: \(id)
                    redirectUri: [ "\(TestBroker.redirect)" ]
                    provider:
                      type: ldap
                      remoteService: \(remote)
            \(auth ? "          authentication: { username: \"cn=readonly,\(base)\", password: readonlypw }" : "")
                      options: { \(options), timeout: \(timeout), connectTimeout: \(timeout), recheckInterval: \(recheck) }
                      allowedAttributes: [ id, audience, email, name, groups, client_token ]
                      datalinkHeaderMapping: { groups: X-User-Groups, email: X-User-Email }
            """
        }
        files["environments/ldap.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            defaultAuthService: search
            authServices:
        \(service("search", url, "baseDn: \"ou=people,\(base)\", groupBaseDn: \"ou=groups,\(base)\""))
        \(service("filtered", url, "baseDn: \"ou=people,\(base)\", userFilter: \"(&(uid={username})(!(description=locked)))\""))
        \(service("direct", url, auth: false, "bindDnTemplate: \"uid={username},ou=people,\(base)\""))
        \(service("starttls", url, "baseDn: \"\(base)\", startTls: true, caFile: \"\(caFile)\""))
        \(service("ldaps", ldapsURL, "baseDn: \"\(base)\", caFile: \"\(caFile)\""))
        \(service("untrusted", ldapsURL, "baseDn: \"\(base)\""))
        \(service("dead", "ldap://127.0.0.1:9", auth: false, "bindDnTemplate: \"uid={username},ou=people,\(base)\""))
        """
        return files
    }

    static func broker(_ files: [String: String] = files(), clock: ManualClock = ManualClock(Date())) async throws -> TestBroker {
        try await TestBroker.make(files: files, registry: registry, clock: clock)
    }

    /// The password grant against auth service `service`.
    static func passwordGrant(_ client: any TestClientProtocol, _ username: String, _ password: String,
                              service: String = "search") async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", "\(appKey).\(service)"),
                                                   ("username", username), ("password", password), ("scope", "openid email profile groups")],
                                  headers: basicAuth(appKey, secret))
    }

    /// Exchanges a code with the environment's Basic credentials.
    static func exchange(_ client: any TestClientProtocol, _ location: String, service: String,
                         verifier: String? = nil) async throws -> TestResponse {
        let code = try #require(queryItems(location)["code"])
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                      ("client_id", "\(appKey).\(service)")]
        if let verifier { fields.append(("code_verifier", verifier)) }
        return try await client.postForm("/oauth/token", fields,
                                         headers: basicAuth(appKey, secret))
    }

    /// Runs a command (ldapdelete, the peer scripts) and returns its exit status.
    @discardableResult
    static func run(_ command: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> Int32 {
        try ChildProcess.run("/usr/bin/env", [command] + arguments, environment: extra, input: input)
    }

    /// `runScript` on a thread of its own, for async tests: the test process has one cooperative
    /// thread per core, and a script that takes seconds (starting slapd) blocking one of them
    /// stalled every other test running meanwhile.
    static func runScriptOffPool(_ path: String, _ arguments: [String] = [], environment extra: [String: String] = [:]) async -> Int32 {
        (try? await offCooperativePool { runScript(path, arguments, environment: extra) }) ?? -1
    }

    /// Runs a peer script and waits for it; its exit status, -1 when it could not start.
    static func runScript(_ path: String, _ arguments: [String] = [], environment extra: [String: String] = [:]) -> Int32 {
        (try? ChildProcess.run(path, arguments, environment: extra)) ?? -1
    }

    /// Changes the directory as its administrator (ldapmodify / ldapdelete).
    static func admin(_ tool: String, _ arguments: [String] = [], input: String? = nil, url: String = LDAPPeer.url ?? "") throws {
        let status = try run(tool, ["-x", "-H", url, "-D", "cn=admin,\(base)", "-w", "adminpw"] + arguments, input: input)
        #expect(status == 0, "\(tool) \(arguments) failed with \(status)")
    }
}

/// The claims of a compact JWS, without verifying it (the tests elsewhere verify signatures).
func jwtPayload(_ token: String) -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
    return object
}

/// Runs blocking work (waiting for a child process) on a thread of its own and resumes the task
/// when it is done, so the cooperative pool keeps serving the other tests meanwhile.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// A blocking-work runner that gives every call a thread of its own: for tests that time one
/// blocking call and must not count its wait behind other tests' work in the shared pool.
struct OwnThreadRunner: BlockingWorkRunner {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await offCooperativePool(work)
    }
}
