import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Runs a Hummingbird router on 127.0.0.1 with an ephemeral port for the duration of a test:
/// scriptable AuthLinks, WRAP servers and data links.
enum TestHTTPServer {
    static func with<T: Sendable>(_ router: Router<BasicRequestContext>,
                                  _ body: @Sendable (_ baseURL: String) async throws -> T) async throws -> T {
        let port = Mutex<Int?>(nil)
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []); return nil }
            var bound: Int?
            for _ in 0..<200 {
                bound = port.withLock { $0 }
                if bound != nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            guard let bound else { throw CancellationError() }
            let result = try await body("http://127.0.0.1:\(bound)")
            group.cancelAll()
            return result
        }
    }
}

/// Counts and remembers calls, for assertions.
final class CallLog: Sendable {
    struct Call: Sendable {
        var method: String
        var path: String
        var query: String?
        var headers: [String: String]
        var body: Data
    }

    private let calls = Mutex<[Call]>([])

    func record(_ request: Request, body: Data) {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        calls.withLock { $0.append(Call(method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
                                        headers: headers, body: body)) }
    }

    var all: [Call] { calls.withLock { $0 } }
    var count: Int { calls.withLock { $0.count } }
    func count(path: String) -> Int { calls.withLock { $0.filter { $0.path == path }.count } }
    var last: Call? { calls.withLock { $0.last } }
}
