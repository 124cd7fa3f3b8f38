import Foundation
import IdentityCore
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One JSON object per line on stderr: `ts` (UTC, milliseconds), `level`, `logger`, `msg` and the
/// metadata as fields. Metadata values are the caller's responsibility: the broker never logs
/// secrets or tokens.
///
/// Written by hand into bytes: with `JSONSerialization` and `Date.formatted` the request log line
/// cost more than many requests themselves at the default log level. The bytes go to a
/// `LogWriter`, which writes them from its own thread.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let writer: LogWriter

    public init(label: String, level: Logger.Level = .info, writer: LogWriter = .standardError) {
        self.label = label
        self.logLevel = level
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: JSONValue] = [
            "ts": .string(LogTimestamp.now()), "level": .string(event.level.rawValue), "logger": .string(label),
            "msg": .string(event.message.description),
        ]
        for (key, value) in metadata { fields[key] = Self.plain(value) }
        for (key, value) in event.metadata ?? [:] { fields[key] = Self.plain(value) }
        var line = JSONValue.serialize(object: fields)
        line.append(0x0A)
        writer.append(line)
    }

    static func plain(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        // Numbers stay numbers (a request line's `status` and `ms`), so log queries can compare them.
        case .stringConvertible(let number as Int): .int(Int64(number))
        case .stringConvertible(let number as Double) where number.isFinite: .double(number)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(plain))
        case .dictionary(let values): .object(values.mapValues(plain))
        }
    }
}

/// `2026-11-23T03:22:20.915Z`, formatting the date part once per second.
enum LogTimestamp {
    private static let cache = Mutex<(second: Int, prefix: String)>((-1, ""))

    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(second: spec.tv_sec, millis: Int(spec.tv_nsec / 1_000_000))
    }

    static func string(for date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let second = Int(interval.rounded(.down))
        return format(second: second, millis: min(999, Int((interval - Double(second)) * 1000)))
    }

    private static func format(second: Int, millis: Int) -> String {
        let prefix = cache.withLock { cached -> String in
            if cached.second == second { return cached.prefix }
            var time = second
            var parts = tm()
            gmtime_r(&time, &parts)
            let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                              Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            cached = (second, text)
            return text
        }
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(prefix).\(fraction)Z"
    }
}
