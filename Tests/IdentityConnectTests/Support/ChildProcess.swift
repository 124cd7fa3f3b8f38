import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Child processes for the tests (peer scripts, samba-tool, ldapmodify, openssl, the sample
/// AuthLink), started with `posix_spawn` rather than Foundation's `Process`:
/// - `Process.run()` on Linux copies each `/proc/self/fd` entry with a 256-byte over-read and
///   crashed this suite (SIGSEGV in memcpy, about a thousand descriptors open; fixed upstream in
///   swift-corelibs-foundation #5472, not in Swift 6.3.1).
/// - `Process` passes on the test process's blocked signals; a slapd started that way ignores
///   SIGTERM. Here a child gets default dispositions and an empty signal mask.
/// - Every descriptor above stderr is closed in the child, so no child holds a test's sockets.
struct ChildProcess: Sendable {
    let pid: pid_t

    struct SpawnFailed: Error, CustomStringConvertible {
        let executable: String
        let code: Int32
        var description: String { "could not start \(executable): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` (an absolute path) with `arguments`; the environment is this process's
    /// plus `environment`, without the variables in `unset`. stdout goes to `stdout` when given (a
    /// descriptor the child writes), else /dev/null; stderr to /dev/null too unless `keepStderr`;
    /// stdin is `stdin` when given (a descriptor the child reads), else /dev/null.
    static func spawn(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
                      unset: Set<String> = [], stdin: Int32? = nil, stdout: Int32? = nil,
                      keepStderr: Bool = true) throws -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if !keepStderr { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        _ = Self.addCloseFrom?(&actions, 3)

        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .filter { !unset.contains($0.key) }.map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnFailed(executable: executable, code: code) }
        return ChildProcess(pid: pid)
    }

    /// Starts the command and waits for it; its exit status (128 + signal when killed).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
                    input: String? = nil, keepStderr: Bool = true) throws -> Int32 {
        guard let input else {
            return try spawn(executable, arguments, environment: environment, keepStderr: keepStderr).wait()
        }
        let (child, reading, writing) = try spawnWithPipe(executable) {
            try spawn(executable, arguments, environment: environment, stdin: $0.reading, keepStderr: keepStderr)
        }
        close(reading)
        let bytes = Array(input.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        close(writing)
        return child.wait()
    }

    /// Runs the command to its end and returns its exit status and everything it wrote to stdout
    /// (stderr goes to /dev/null).
    static func output(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
                       unset: Set<String> = []) throws -> (status: Int32, stdout: [UInt8]) {
        let (child, reading, writing) = try spawnWithPipe(executable) {
            try spawn(executable, arguments, environment: environment, unset: unset, stdout: $0.writing, keepStderr: false)
        }
        close(writing)
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            collected += chunk[0..<count]
        }
        close(reading)
        return (child.wait(), collected)
    }

    /// A pipe and the child `start` spawns with one of its ends; both ends stay open for the caller,
    /// or are closed when `start` throws. Both are close-on-exec (the child gets its end through
    /// `dup2`, which clears the flag): no child another test starts meanwhile inherits them, since
    /// one holding the write end would keep this pipe's reader from ever seeing its end.
    private static func spawnWithPipe(_ executable: String, _ start: (_ ends: (reading: Int32, writing: Int32)) throws -> ChildProcess)
        throws -> (child: ChildProcess, reading: Int32, writing: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnFailed(executable: executable, code: errno) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        do {
            return (try start((ends[0], ends[1])), ends[0], ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
    }

    /// Waits for the child to exit; its exit status (128 + signal when killed).
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return Self.exitCode(status)
    }

    /// Whether it is still running (reaps it when it has exited).
    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// SIGTERM, then waits for it.
    func terminate() {
        kill(pid, SIGTERM)
        _ = wait()
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: its
    /// declaration needs `_GNU_SOURCE`, which Swift's Glibc module does not define.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    nonisolated(unsafe) private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    private static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
