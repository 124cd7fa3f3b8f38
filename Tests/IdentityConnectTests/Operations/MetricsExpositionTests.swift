import BuildInfo
import Foundation
@testable import IdentityApp
import IdentityCore
import Logging
import Testing

/// `/metrics` as an operator reads it (docs/operations.md, "Metrics"): every family explained,
/// the process's own series, the build; and the request log's fields (docs/operations.md, "Logs").
@Suite("Metrics and request logs: HELP on every family, process series, numbers and redacted paths")
struct MetricsExpositionTests {
    @Test("every metric family has a HELP line, after sign-ins, refusals and errors")
    func everyFamilyExplained() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            _ = try await Flows.tokens(client)
            _ = try await Flows.automatedLogin(client, password: "wrong")
            _ = try await client.get("/oauth/validate?access_token=nonsense")
            let text = try await client.get("/metrics").text
            let typed = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
            let helped = Set(text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] })
            #expect(typed.count >= 15)
            #expect(typed.subtracting(helped).isEmpty, "families without HELP: \(typed.subtracting(helped).sorted())")
        }
    }

    @Test("the process's CPU, memory, files, threads, start and build are exposed with plausible values")
    func processSeries() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let text = try await client.get("/metrics").text
            func value(_ name: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000)
            #expect((value("process_virtual_memory_bytes") ?? 0) > (value("process_resident_memory_bytes") ?? 0))
            #expect((value("process_open_fds") ?? 0) >= 3)
            #expect((value("process_max_fds") ?? 0) >= (value("process_open_fds") ?? 0))
            #expect((value("process_threads") ?? 0) >= 2)
            #expect((value("process_cpu_seconds_total") ?? 0) > 0)
            let started = value("process_start_time_seconds") ?? 0
            #expect(started > Date().timeIntervalSince1970 - 86_400 * 3 && started <= Date().timeIntervalSince1970 + 1)
            #expect(text.contains("idconnect_build_info{version=\"\(BuildInfo.version)\",commit=\"\(BuildInfo.commit)\"} 1"))
        }
    }

    @Test("/proc/<pid>/stat is read from the last parenthesis, whatever the command name holds")
    func statParsing() throws {
        // Fields from 3 on: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime(14) stime(15) cutime cstime priority nice num_threads(20) itrealvalue starttime(22) vsize(23) rss(24)
        let line = "4242 (idc (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 1000 123456789 2048 rest"
        let stat = try #require(ProcessMetrics.parse(stat: line, ticksPerSecond: 100, pageSize: 4096, bootTime: 1_700_000_000))
        #expect(stat.cpuSeconds == 3)
        #expect(stat.threads == 7)
        #expect(stat.startTime == 1_700_000_010)
        #expect(stat.virtualBytes == 123_456_789)
        #expect(stat.residentBytes == 2048 * 4096)
        #expect(ProcessMetrics.parse(stat: "garbage", ticksPerSecond: 100, pageSize: 4096, bootTime: 0) == nil)
        #expect(ProcessMetrics.parse(stat: "1 (x) S 1 2", ticksPerSecond: 100, pageSize: 4096, bootTime: 0) == nil)
    }

    @Test("request log paths cut every one-time id, bare and under /v1–/v3", arguments: [
        ("/oauth/authenticate/abc123", "/oauth/authenticate/…"),
        ("/v3/oauth/authenticate/abc123", "/v3/oauth/authenticate/…"),
        ("/oauth/register/inst-1", "/oauth/register/…"),
        ("/oauth/qr/start/PendingId", "/oauth/qr/start/…"),
        ("/v2/oauth/qr/start/PendingId", "/v2/oauth/qr/start/…"),
        ("/oauth/mfa/StepId", "/oauth/mfa/…"),
        ("/oauth/mfa/StepId/passkey", "/oauth/mfa/…/passkey"),
        ("/v1/oauth/mfa/StepId/continue", "/v1/oauth/mfa/…/continue"),
        ("/api/v3/auth/qr/6c1f-code/confirm", "/api/v3/auth/qr/…/confirm"),
        ("/oauth/qr/status", "/oauth/qr/status"),
        ("/oauth/token", "/oauth/token"),
        ("/oauth/mfa", "/oauth/mfa"),
    ])
    func redactedPaths(path: String, logged: String) {
        #expect(RequestLog.loggablePath(path) == logged)
    }

    @Test("numbers in log metadata stay numbers in the JSON line; other values are strings")
    func numbersInJSONLogs() {
        #expect(JSONLogHandler.plain(.stringConvertible(200)) == .int(200))
        #expect(JSONLogHandler.plain(.stringConvertible(12.5)) == .double(12.5))
        #expect(JSONLogHandler.plain(.stringConvertible(Double.nan)) == .string("nan"))
        #expect(JSONLogHandler.plain(.string("200")) == .string("200"))
        #expect(JSONLogHandler.plain(.stringConvertible(true)) == .string("true"))
    }
}
