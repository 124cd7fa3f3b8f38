import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityConfig
import Logging
import Testing

/// `mfa` in `config check`, the mfa.* audit events with their /metrics counters, and nothing
/// secret in the audit trail (docs/mfa.md, "Operators").
@Suite("MFA: configuration, audit events and metrics")
struct MFAOperationsTests {
    @Test("config check reports a bad mode, an unknown or empty method list and a bad issuerName with key paths")
    func configCheck() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": """
            environments:
              - appKey: kid_a
                appSecret: s
                defaultAuthService: s1
                authServices:
            \(ConfigLoaderTests.service("s1", extra: "        mfa: { mode: always, methods: [ sms ], issuerName: 'A:B' }"))
            \(ConfigLoaderTests.service("s2", extra: "        mfa: { mode: required, methods: [], colour: blue }"))
            """]).map(\.description)
        func has(_ path: String, _ reason: String) -> Bool { problems.contains { $0.contains(path) && $0.contains(reason) } }
        #expect(has("authServices[0].mfa.mode", "off, optional or required"))
        #expect(has("authServices[0].mfa.methods", "unknown method 'sms'"))
        #expect(has("authServices[0].mfa.issuerName", "without ':'"))
        #expect(has("authServices[1].mfa.methods", "at least one method"))
        #expect(problems.contains { $0.contains("colour") }, "\(problems)")
    }

    @Test("enrolment, failures, recovery-code use and reset are audit events and /metrics counters; no code or key in them")
    func auditAndMetrics() async throws {
        let auditFile = FileManager.default.temporaryDirectory.appendingPathComponent("idc-mfa-audit-\(UUID().uuidString).jsonl").path
        let broker = try await MFAFixture.make(auditFile: auditFile)
        try await broker.withClient { client in
            let (key, codes, _) = try await MFABrowserTests.enrol(MFABrowser(client), broker)
            let browser = MFABrowser(client)
            let page = MFAPage(html: try await browser.get(try must(try await browser.signIn().location)).text)
            _ = try await browser.post(try must(page.action), [("csrf_token", try must(page.csrfToken)), ("otp", codes[1])])
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let tools = try await OperatorTools.open(configDirectory: broker.configDirectory.path, storage: broker.storage,
                                                     registry: TestBroker.defaultRegistry,
                                                     environment: ["TEST_APP_SECRET": TestBroker.appSecret], clock: broker.clock, logger: logger)
            _ = try await tools.resetMFA(authService: "required", user: "alice")

            let metrics = try await client.get("/metrics").text
            for event in ["mfa.enrolled", "mfa.failed", "mfa.recovery_code_used"] {
                #expect(metrics.contains(#"idconnect_audit_events_total{event="\#(event)"} 1"#), "\(event)")
            }
            #expect(metrics.contains(#"idconnect_security_events_total{kind="passkey_counter"} 0"#))
            // The audit file is written by a background writer: wait until the operator's line is in.
            var lines = ""
            for _ in 0..<100 {
                lines = (try? String(contentsOfFile: auditFile, encoding: .utf8)) ?? ""
                if lines.contains("mfa.removed") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            for event in ["mfa.enrolled", "mfa.failed", "mfa.recovery_code_used", "mfa.removed"] {
                #expect(lines.contains(#""event":"\#(event)""#), "\(event)")
            }
            let secret = try must(key.totpSecret)
            for needle in [secret, secret.replacingOccurrences(of: " ", with: "")] + codes + codes.map { $0.replacingOccurrences(of: "-", with: "") } {
                #expect(!lines.contains(needle))
                #expect(!metrics.contains(needle))
            }
        }
    }
}
