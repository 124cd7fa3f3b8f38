import Foundation
import IdentityCore

/// Reads the members of a stored record's JSON object (`StoredJSON.swift`). A member of an
/// unexpected kind, a required one missing, or one it was not asked about leaves `complete`
/// false, and the caller falls back to `JSONDecoder` rather than drop or guess anything.
struct StoredObject {
    private let object: [String: JSONValue]
    private var asked = 0
    private var understood = true

    init(_ object: [String: JSONValue]) { self.object = object }

    /// Whether every member was of the expected kind and none was left unread.
    var complete: Bool { understood && asked == object.count }

    /// A member that must be there, as `extract` reads it (nil: not of that kind).
    private mutating func required<T>(_ key: String, _ extract: (JSONValue) -> T?) -> T? {
        guard let value = object[key] else { understood = false; return nil }
        asked += 1
        guard let result = extract(value) else { understood = false; return nil }
        return result
    }

    /// A member that may be missing or `null`, as `extract` reads it otherwise.
    private mutating func optional<T>(_ key: String, _ extract: (JSONValue) -> T?) -> T? {
        guard let value = object[key] else { return nil }
        asked += 1
        if case .null = value { return nil }
        guard let result = extract(value) else { understood = false; return nil }
        return result
    }

    private static func text(_ value: JSONValue) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    private static func integer(_ value: JSONValue) -> Int? {
        if case .int(let number) = value { return Int(exactly: number) }
        return nil
    }

    private static func flag(_ value: JSONValue) -> Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    private static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    /// A date as `JSONEncoder` writes it by default: seconds since the reference date.
    private static func date(_ value: JSONValue) -> Date? {
        switch value {
        case .int(let seconds): Date(timeIntervalSinceReferenceDate: Double(seconds))
        case .double(let seconds): Date(timeIntervalSinceReferenceDate: seconds)
        default: nil
        }
    }

    /// `Data` as `JSONEncoder` writes it by default: a base64 string.
    private static func data(_ value: JSONValue) -> Data? { text(value).flatMap { Data(base64Encoded: $0) } }

    mutating func string(_ key: String) -> String? { required(key, Self.text) }
    mutating func int(_ key: String) -> Int { required(key, Self.integer) ?? 0 }
    mutating func date(_ key: String) -> Date { required(key, Self.date) ?? .distantPast }
    mutating func optionalString(_ key: String) -> String? { optional(key, Self.text) }
    mutating func optionalInt(_ key: String) -> Int? { optional(key, Self.integer) }
    mutating func optionalBool(_ key: String) -> Bool? { optional(key, Self.flag) }
    mutating func optionalStrings(_ key: String) -> [String]? { optional(key, Self.strings) }
    mutating func optionalData(_ key: String) -> Data? { optional(key, Self.data) }

    /// A member that must be missing or `null` for the fast path (one `Codable` must read).
    mutating func absent(_ key: String) { _ = optional(key) { _ in nil as Bool? } }
}
