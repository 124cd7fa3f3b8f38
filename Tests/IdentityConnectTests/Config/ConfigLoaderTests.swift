import EngineTesting
import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import StaticConnector
import Testing

@Suite("console-config loading and validation (docs/configuration.md)")
struct ConfigLoaderTests {
    static let registry = ConnectorRegistry([StaticConnectorFactory()])
    static let hash = "$pbkdf2-sha256$i=10000$c2FsdHNhbHRzYWx0MTIzNA$y+5YSylvLxd2vcvpVRpvESiCmo94wwW2RTZdp23Pum4"

    static func directory(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-config-\(UUID().uuidString)")
        for (name, content) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        return root.path
    }

    static func problems(_ files: [String: String], environment: [String: String] = [:]) throws -> [ConfigProblem] {
        do {
            _ = try BrokerBootstrap.loadConfig(directory: try directory(files), registry: registry, environment: environment)
            return []
        } catch let problems as ConfigProblems {
            return problems.problems
        }
    }

    static func service(_ id: String = "s1", extra: String = "") -> String {
        """
              - id: \(id)
                redirectUri: [ "https://app.example.com/cb" ]
        \(extra)
                provider:
                  type: static
                  options: { users: [ { username: u, passwordHash: "\(hash)" } ] }
        """
    }

    @Test("the shipped console-config loads and has the demo static service")
    func shippedConfig() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("console-config")
        let (config, directory) = try BrokerBootstrap.loadConfig(directory: root.path, registry: Self.registry, environment: [:])
        #expect(config.environments.first?.appKey == "kid_demo")
        #expect(directory.resolve("kid_demo")?.service.provider.type == "static")
    }

    @Test("files are merged; references resolve, also inside flow collections")
    func mergeAndReferences() throws {
        let dir = try Self.directory([
            "a.yaml": "server:\n  issuer: ${env:ISSUER}\norganizations:\n  - id: acme\n    authServices:\n\(Self.service("org-svc"))\n",
            "b/env.yml": """
            environments:
              - appKey: kid_a
                appSecret: ${file:secret.txt}
                organization: acme
                defaultAuthService: org-svc
                registration: { initialAccessTokens: [ ${env:IAT} ], softwareStatements: { CSI: { jwks: ${file:secret.txt} } } }
                authServices:
            \(Self.service("own", extra: "        identityStoreId: abc\n        description: kinvey export\n        access: {}"))
            """,
            "secret.txt": "s3cret-value-long\n",
        ])
        let config = try ConfigLoader(environment: ["ISSUER": "https://id.example.com/", "IAT": "iat-1"]).load(directory: dir)
        #expect(config.server.issuer == "https://id.example.com")
        #expect(config.environments[0].appSecret == "s3cret-value-long")
        #expect(config.environments[0].registration?.initialAccessTokens == ["iat-1"])
        #expect(config.organizations[0].authServices[0].id == "org-svc")
        let (_, directory) = try BrokerBootstrap.loadConfig(directory: dir, registry: Self.registry, environment: ["ISSUER": "https://id.example.com", "IAT": "x"])
        #expect(directory.resolve("kid_a")?.service.id == "org-svc")
        #expect(directory.resolve("kid_a.own")?.service.id == "own")
        #expect(directory.resolve("kid_a.missing") == nil)
        #expect(directory.resolve("kid_b") == nil)
        // The first dot splits, also before non-ASCII text; nothing around it is trimmed or merged.
        for unknown in ["kid_a.", ".own", "kid_a.own.extra", "kid_a.own\u{301}", "kid_a\u{301}.own", "kid_a.ówn", "kid_a\u{0}.own", ""] {
            #expect(directory.resolve(unknown) == nil, "\(unknown)")
        }
        #expect(directory.resolve("kid_a.own")?.clientId == "kid_a.own")
    }

    @Test("a ${file:} reference to a device, a directory or a huge file is a problem, never an endless read")
    func fileReferenceLimits() throws {
        let big = String(repeating: "x", count: (1 << 20) + 1)
        for (path, reason) in [("/dev/zero", "not a regular file"), ("/tmp", "not a regular file"), ("big.txt", "larger than")] {
            let found = try Self.problems([
                "env.yml": "environments:\n  - appKey: kid_a\n    appSecret: ${file:\(path)}\n    authServices:\n\(Self.service())\n",
                "big.txt": big,
            ])
            #expect(found.contains { $0.reason.contains(reason) }, "\(path): \(found.map(\.reason))")
        }
    }

    @Test("every kind of problem is reported with file, key path and reason, all in one run")
    func problemsReported() throws {
        let problems = try Self.problems([
            "env.yaml": """
            storage: mysql://x
            signing: { algorithm: HS256 }
            environments:
              - appKey: kid_x
                defaultAuthService: ghost
                organization: nowhere
                authServices:
                  - id: s1
                    redirectUri: [ "relative", "https://ok.example/cb#frag", "https://ok.example/cb#%94frag" ]
                    grantTtl: 0
                    tokenTtl: -1
                    refreshTtl: soon
                    refresh: maybe
                    tokenFormat: paper
                    provider: { type: kerberos }
                  - id: s1
                    redirectUri: []
                    grantTtll: 5
                    provider:
                      type: static
                      options: { users: [ { username: u, passwordHash: "md5:abc" } ] }
                  - id: s3
                    provider: { type: static, options: { users: [] } }
              - appKey: kid_x
                authServices:
            \(Self.service())
            """,
            "broken.yaml": "environments: [ {",
            "refs.yaml": "server:\n  issuer: ${env:NOPE}\n",
        ])
        let text = problems.map(\.description)
        func has(_ path: String, _ reason: String) -> Bool {
            text.contains { $0.contains(path) && $0.contains(reason) }
        }
        #expect(has("broken.yaml", "invalid YAML"))
        #expect(has("refs.yaml:2: server.issuer", "environment variable NOPE is not set"))
        #expect(has("env.yaml:1: storage", "sqlite:PATH or postgres"))
        #expect(has("signing.algorithm", "RS256 or ES256"))
        #expect(has("environments[0].defaultAuthService", "'ghost'"))
        #expect(has("environments[0].organization", "'nowhere' is not defined"))
        #expect(has("authServices[0].redirectUri", "'relative'"))
        #expect(has("authServices[0].redirectUri", "#frag"))
        // A fragment whose escape is not UTF-8 decodes to nothing in URLComponents; still a fragment.
        #expect(has("authServices[0].redirectUri", "#%94frag"))
        #expect(has("authServices[0].grantTtl", "positive"))
        #expect(has("authServices[0].tokenTtl", "positive"))
        #expect(has("authServices[0].refreshTtl", "integer"))
        #expect(has("authServices[0].refresh", "true or false"))
        #expect(has("authServices[0].tokenFormat", "jwt or opaque"))
        #expect(has("authServices[0].provider.type", "unknown provider type 'kerberos'"))
        #expect(has("authServices[1].id", "duplicate auth service id 's1'"))
        #expect(has("authServices[1].redirectUri", "must not be empty"))
        #expect(has("authServices[1].grantTtll", "unknown key"))
        #expect(has("authServices[1].provider.options.users[0].passwordHash", "PHC"))
        #expect(has("authServices[2].redirectUri", "is required"))
        #expect(has("environments[1].appKey", "duplicate appKey 'kid_x'"))
        #expect(problems.allSatisfy { !$0.location.file.isEmpty })
    }

    @Test("serve refuses to start on a bad configuration")
    func serveRefuses() async throws {
        let dir = try Self.directory(["x.yaml": "environments:\n  - appKey: kid_x\n    bogus: 1\n    authServices:\n\(Self.service())\n"])
        await #expect(throws: ConfigProblems.self) {
            _ = try await BrokerBootstrap.prepare(options: ServeOptions(configDirectory: dir, storage: "sqlite:\(dir)/db.sqlite"),
                                                  registry: Self.registry, environment: [:], logger: .init(label: "t"))
        }
        #expect(throws: ConfigProblems.self) { try ConfigLoader().load(directory: dir + "/missing") }
    }

    @Test("connectors learn the issuer the serve flags give (their callback URLs and SAML entity ids derive from it)")
    func connectorsSeeFlagIssuer() async throws {
        let seen = IssuerRecorder()
        let dir = try Self.directory(["x.yaml": "environments:\n  - appKey: kid_x\n    authServices:\n\(Self.service())\n"])
        _ = try await BrokerBootstrap.prepare(options: ServeOptions(configDirectory: dir, host: "127.0.0.1", port: 18081,
                                                                    storage: "sqlite:\(dir)/db.sqlite"),
                                              registry: ConnectorRegistry([IssuerRecordingFactory(seen: seen)]), environment: [:],
                                              generateSigningKey: TestSigningKeys.make, logger: .init(label: "t"))
        #expect(seen.issuers == ["http://127.0.0.1:18081"])
    }

    @Test("provider types docs/configuration.md lists that this build lacks are reported, not ignored")
    func unavailableType() throws {
        let problems = try Self.problems(["x.yaml": """
            environments:
              - appKey: kid_x
                authServices:
                  - id: s1
                    redirectUri: [ "https://a.example/cb" ]
                    provider: { type: ldap, remoteService: "ldap://127.0.0.1" }
            """])
        #expect(problems.contains { $0.description.contains("not available in this build") })
    }
}

/// The issuers connectors were built with.
final class IssuerRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var issuers: [String] { lock.withLock { recorded } }
    func record(_ issuer: String) { lock.withLock { recorded.append(issuer) } }
}

/// The static connector, noting the issuer its context carries.
struct IssuerRecordingFactory: ConnectorFactory {
    let seen: IssuerRecorder
    var providerTypes: [String] { ["static"] }

    func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        seen.record(context.issuer)
        return try StaticConnectorFactory().makeConnector(settings, context: context)
    }
}
