import Foundation
import IdentityConfig
import IdentityCore
import Logging
import OAuthEngine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `server.audit.file`: audit events as JSON lines (`ts`, `event`, then the event's fields),
/// written from a thread of their own (`LogWriter`) and rotated by size. The file is created
/// 0600: it names users and their addresses.
public final class AuditFile: AuditSink {
    private let writer: LogWriter

    private static let opened = Mutex<[AuditFile]>([])

    public init(settings: AuditSettings, path: String) throws {
        writer = LogWriter(destination: try RotatingFile(path: path, maxBytes: settings.maxBytes, keep: settings.keep),
                           limit: 4 << 20)
        Self.opened.withLock { $0.append(self) }
    }

    /// The audit trail `settings` ask for: the `idconnect.audit` log label (at `notice`, so at the
    /// broker's log level like every other line) and metrics, plus the file when one is configured.
    public static func trail(_ settings: AuditSettings, metrics: any BrokerMetricsSink, clock: any BrokerClock,
                             logLevel: Logger.Level = .info) throws -> AuditTrail {
        let sinks: [any AuditSink] = try settings.file.map { [try AuditFile(settings: settings, path: $0)] } ?? []
        var logger = Logger(label: AuditTrail.label)
        logger.logLevel = logLevel
        return AuditTrail(logger: logger, metrics: metrics, sinks: sinks, clock: clock)
    }

    /// Flushes every audit file this process opened (at exit).
    public static func flushAll(timeout: TimeInterval = 2) {
        for file in opened.withLock({ $0 }) { file.flush(timeout: timeout) }
    }

    public func write(_ event: AuditEvent, at date: Date) {
        var fields: [String: JSONValue] = ["ts": .string(LogTimestamp.string(for: date)), "event": .string(event.name.rawValue)]
        for (key, value) in event.fields where fields[key] == nil { fields[key] = .string(value) }
        var line = JSONValue.serialize(object: fields)
        line.append(0x0A)
        writer.append(line)
    }

    /// Waits until queued events are on disk (tests, shutdown).
    @discardableResult
    public func flush(timeout: TimeInterval = 5) -> Bool { writer.flush(timeout: timeout) }
}

/// A file appended to until it would grow past `maxBytes`, then renamed to `path.1` (older ones
/// move up to `path.<keep>`, the oldest is dropped) and started afresh.
final class RotatingFile: LogDestination {
    private struct Open {
        var fileDescriptor: Int32
        var size: Int
    }

    let path: String
    let maxBytes: Int
    let keep: Int
    private let current: Mutex<Open>

    var name: String { "audit file \(path)" }

    init(path: String, maxBytes: Int, keep: Int) throws {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        current = Mutex(try Self.open(path))
    }

    func write(_ bytes: [UInt8]) {
        current.withLock { file in
            if file.size > 0, file.size + bytes.count > maxBytes, let reopened = rotate(closing: file.fileDescriptor) {
                file = reopened
            }
            file.size += FileDescriptorDestination.writeAll(bytes, to: file.fileDescriptor)
        }
    }

    private func rotate(closing fileDescriptor: Int32) -> Open? {
        close(fileDescriptor)
        unlink("\(path).\(keep)")
        for index in stride(from: keep - 1, through: 1, by: -1) { rename("\(path).\(index)", "\(path).\(index + 1)") }
        rename(path, "\(path).1")
        return try? Self.open(path)
    }

    private static func open(_ path: String) throws -> Open {
        let fileDescriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fileDescriptor >= 0 else {
            throw BootstrapError("cannot open audit file \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        fstat(fileDescriptor, &status)
        return Open(fileDescriptor: fileDescriptor, size: Int(status.st_size))
    }
}
