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

    mutating func string(_ key: String) -> String? {
        asked += object[key] == nil ? 0 : 1
        guard case .string(let text)? = object[key] else { understood = false; return nil }
        return text
    }

    mutating func optionalString(_ key: String) -> String? {
        switch object[key] {
        case nil: return nil
        case .null?: asked += 1; return nil
        case .string(let text)?: asked += 1; return text
        default: understood = false; return nil
        }
    }

    mutating func date(_ key: String) -> Date {
        asked += object[key] == nil ? 0 : 1
        switch object[key] {
        case .int(let seconds)?: return Date(timeIntervalSinceReferenceDate: Double(seconds))
        case .double(let seconds)?: return Date(timeIntervalSinceReferenceDate: seconds)
        default: understood = false; return .distantPast
        }
    }

    mutating func optionalStrings(_ key: String) -> [String]? {
        switch object[key] {
        case nil: return nil
        case .null?: asked += 1; return nil
        case .array(let items)?:
            asked += 1
            let strings = items.compactMap(\.stringValue)
            if strings.count != items.count { understood = false }
            return strings
        default: understood = false; return nil
        }
    }

    mutating func optionalBool(_ key: String) -> Bool? {
        switch object[key] {
        case nil: return nil
        case .null?: asked += 1; return nil
        case .bool(let flag)?: asked += 1; return flag
        default: understood = false; return nil
        }
    }

    mutating func absent(_ key: String) {
        switch object[key] {
        case nil: break
        case .null?: asked += 1
        default: understood = false
        }
    }

    /// Whether every member was of the expected kind and none was left unread.
    var complete: Bool { understood && asked == object.count }

    mutating func int(_ key: String) -> Int {
        asked += object[key] == nil ? 0 : 1
        guard case .int(let number)? = object[key], let value = Int(exactly: number) else { understood = false; return 0 }
        return value
    }

    mutating func optionalInt(_ key: String) -> Int? {
        switch object[key] {
        case nil: return nil
        case .null?: asked += 1; return nil
        case .int(let number)?:
            asked += 1
            guard let value = Int(exactly: number) else { understood = false; return nil }
            return value
        default: understood = false; return nil
        }
    }

    /// `Data` as `JSONEncoder` writes it by default: a base64 string.
    mutating func optionalData(_ key: String) -> Data? {
        guard let text = optionalString(key) else { return nil }
        guard let data = Data(base64Encoded: text) else { understood = false; return nil }
        return data
    }
}
