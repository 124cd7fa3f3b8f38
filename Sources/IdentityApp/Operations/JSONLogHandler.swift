import Foundation
import Logging
import Synchronization

/// One JSON object per line on stderr: `ts`, `level`, `logger`, `msg` and the metadata as fields.
/// Metadata values are the caller's responsibility: the broker never logs secrets or tokens.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private static let lock = Mutex(())

    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [
            "ts": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)),
            "level": event.level.rawValue, "logger": label, "msg": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = Self.plain(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        Self.lock.withLock { _ in
            FileHandle.standardError.write(data + Data([0x0A]))
        }
    }

    static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}
