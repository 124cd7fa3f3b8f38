import ArgumentParser
import Foundation
import JOSE
import OAuthEngine
import SAMLConnector

/// `idconnect bench signing`: how many token signatures per second this machine can make with
/// the broker's own signing code — the ceiling of the token endpoint, printed as JSON so
/// `scripts/bench.py` can put it beside the measured code-exchange rate.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Measurements the benchmark script uses.",
                                                    subcommands: [Signing.self, SAMLVerification.self, Executor.self])

    struct Signing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Signatures per second for RS256 (RSA-2048) and ES256, on every core; RS256 also through swift-crypto alone.")

        @Option(help: "Seconds to sign for, per algorithm.") var seconds: Double = 2
        @Option(help: "Signing threads (default: active processors).") var threads: Int?

        func run() async throws {
            let workers = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
            var results: [String: Int] = [:]
            for algorithm in [JOSEAlgorithm.rs256, .es256] {
                let key = try SigningKey.generate(algorithm)
                results[algorithm.rawValue] = try await Self.signaturesPerSecond(key: key, workers: workers, seconds: seconds)
            }
            // The same RSA work through swift-crypto (BoringSSL), which the broker uses when
            // OpenSSL cannot load a key: the comparison docs/benchmarks.md reports.
            let rsa = try SigningKey.generate(.rs256)
            results["RS256 (swift-crypto)"] = try await Self.signaturesPerSecond(key: rsa.withoutOpenSSL, workers: workers, seconds: seconds)
            let json = try JSONSerialization.data(withJSONObject: ["threads": workers, "signs_per_second": results,
                                                                   "rs256_library": rsa.signingLibrary], options: [.sortedKeys])
            print(String(decoding: json, as: UTF8.self))
        }

        /// Signs a typical access-token signing input on `workers` threads for `seconds`.
        static func signaturesPerSecond(key: SigningKey, workers: Int, seconds: Double) async throws -> Int {
            let input = Data(String(repeating: "eyJhbGciOiJSUzI1NiJ9.", count: 20).utf8)
            let started = Date()
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        try await withCheckedThrowingContinuation { continuation in
                            Thread.detachNewThread {
                                var count = 0
                                do {
                                    while Date().timeIntervalSince(started) < seconds {
                                        _ = try key.sign(input)
                                        count += 1
                                    }
                                    continuation.resume(returning: count)
                                } catch { continuation.resume(throwing: error) }
                            }
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            return Int(Double(counts) / max(Date().timeIntervalSince(started), 0.001))
        }
    }

    struct SAMLVerification: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "saml",
                                                        abstract: "SAML Responses fully validated per second (RSA-2048 signed assertion).")

        @Option(help: "Seconds to measure for.") var seconds: Double = 2
        @Option(help: "Threads (default: active processors).") var threads: Int?

        func run() async throws {
            let workers = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
            let single = try SAMLVerificationBenchmark.verificationsPerSecond(workers: 1, seconds: seconds)
            let all = try SAMLVerificationBenchmark.verificationsPerSecond(workers: workers, seconds: seconds)
            let json = try JSONSerialization.data(withJSONObject: ["threads": workers, "per_second": all, "one_thread": single],
                                                  options: [.sortedKeys])
            print(String(decoding: json, as: UTF8.self))
        }
    }
}
