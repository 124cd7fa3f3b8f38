import ConnectorHTTP
import Foundation
import Testing

@Suite("Test support: server children on a free port")
struct ListeningChildTests {
    static let sample = SampleAuthLink.root.appendingPathComponent(".build/debug/authlink-sample").path
    static let users = SampleAuthLink.root.appendingPathComponent("Connectors/AuthLinkSample/users.json").path

    static func answers(_ port: Int) async -> Bool? {
        (try? await UpstreamHTTP(timeout: .seconds(1)).postJSON("http://127.0.0.1:\(port)/login", [:], what: "sample")) != nil ? true : nil
    }

    @Test("a child that exits before it listens (its port taken meanwhile) is started again on another port")
    func restartsAnExitedChild() async throws {
        var ports: [Int] = []
        let (process, port, _) = try await ListeningChild.start("the sample AuthLink", spawn: { port in
            ports.append(port)
            if ports.count == 1 { return try ChildProcess.spawn("/bin/false") }
            return try ChildProcess.spawn(Self.sample, ["--port", "\(port)", "--users", Self.users], keepStderr: false)
        }, ready: Self.answers)
        defer { process.terminate() }
        #expect(ports.count == 2)
        #expect(ports.last == port)
        #expect(process.isRunning)
    }

    @Test("a child that exits on every try: the error names each port, after the given number of tries")
    func givesUpAfterTries() async throws {
        var spawned = 0
        let error = await #expect(throws: ListeningChild.NotListening.self) {
            _ = try await ListeningChild.start("false", tries: 3, spawn: { _ in
                spawned += 1
                return try ChildProcess.spawn("/bin/false")
            }, ready: Self.answers)
        }
        #expect(spawned == 3)
        #expect(error?.description.hasPrefix("false exited without listening, on each of ports") == true)
    }
}
