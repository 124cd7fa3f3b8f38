import Foundation

/// A parsed `--storage` / `storage:` value.
public enum StorageLocation: Sendable, Equatable {
    /// `sqlite:PATH` (relative paths are relative to the working directory); `sqlite::memory:` for tests.
    case sqlite(path: String)
    /// `postgres://user:pass@host:port/db?...`
    case postgres(url: String)

    public static let defaultValue = "sqlite:./data/idconnect.sqlite"

    public init?(_ text: String) {
        let lower = text.lowercased()
        if lower.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty else { return nil }
            self = .sqlite(path: path)
        } else if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            return nil
        }
    }

    /// Text safe to log: a PostgreSQL password is masked.
    public var redacted: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "postgres://…" }
            if components.password != nil { components.password = "****" }
            return components.string ?? "postgres://…"
        }
    }
}
