import CMaxMindDB
import Foundation
import IdentityCore

/// A MaxMind-format city database (GeoIP2 / GeoLite2 City, `server.geoip.database`), memory-mapped
/// at open. Lookups only read the mapping — no I/O after the first touch of a page — and are safe
/// from any thread.
public final class MaxMindLocator: AddressLocator, @unchecked Sendable {
    private let database: UnsafeMutablePointer<MMDB_s>

    /// Opens `path`; throws with libmaxminddb's reason when it is missing or not a database.
    public init(path: String) throws {
        // Opened before `database` is set: a failed open throws before deinit could run.
        let opened = UnsafeMutablePointer<MMDB_s>.allocate(capacity: 1)
        let status = MMDB_open(path, UInt32(MMDB_MODE_MMAP), opened)
        guard status == MMDB_SUCCESS else {
            opened.deallocate()
            throw GeoIPError("cannot open GeoIP database \(path): \(String(cString: MMDB_strerror(status)))")
        }
        database = opened
    }

    deinit {
        MMDB_close(database)
        database.deallocate()
    }

    public func locate(_ address: String, languages: [String]) -> GeoLocation? {
        var gaiError: Int32 = 0
        var mmdbError: Int32 = 0
        var result = MMDB_lookup_string(database, address, &gaiError, &mmdbError)
        guard gaiError == 0, mmdbError == MMDB_SUCCESS, result.found_entry else { return nil }
        let names = Self.nameOrder(languages)
        func name(_ path: [String]) -> String? {
            for language in names {
                if let text = Self.string(&result.entry, path + ["names", language]) { return text }
            }
            return nil
        }
        let location = GeoLocation(
            country: name(["country"]), state: name(["subdivisions", "0"]), city: name(["city"]),
            latitude: Self.double(&result.entry, ["location", "latitude"]),
            longitude: Self.double(&result.entry, ["location", "longitude"]),
            radius: Self.integer(&result.entry, ["location", "accuracy_radius"]))
        return location == GeoLocation() ? nil : location
    }

    /// The languages to try for place names: each preferred tag, its primary language, then English.
    static func nameOrder(_ languages: [String]) -> [String] {
        var order: [String] = []
        for tag in languages + ["en"] {
            for candidate in [tag, String(tag.split(separator: "-").first ?? "")] where !candidate.isEmpty && !order.contains(candidate) {
                order.append(candidate)
            }
        }
        return order
    }

    private static func value(_ entry: inout MMDB_entry_s, _ path: [String]) -> MMDB_entry_data_s? {
        var data = MMDB_entry_data_s()
        let strings = path.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer($0) } + [nil]
        let status = pointers.withUnsafeMutableBufferPointer { buffer in MMDB_aget_value(&entry, &data, buffer.baseAddress) }
        guard status == MMDB_SUCCESS, data.has_data else { return nil }
        return data
    }

    private static func string(_ entry: inout MMDB_entry_s, _ path: [String]) -> String? {
        guard let data = value(&entry, path), data.type == UInt32(MMDB_DATA_TYPE_UTF8_STRING), let bytes = data.utf8_string else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(data.data_size)), as: UTF8.self)
    }

    private static func double(_ entry: inout MMDB_entry_s, _ path: [String]) -> Double? {
        guard let data = value(&entry, path) else { return nil }
        switch Int32(data.type) {
        case MMDB_DATA_TYPE_DOUBLE: return data.double_value
        case MMDB_DATA_TYPE_FLOAT: return Double(data.float_value)
        default: return nil
        }
    }

    private static func integer(_ entry: inout MMDB_entry_s, _ path: [String]) -> Int? {
        guard let data = value(&entry, path) else { return nil }
        switch Int32(data.type) {
        case MMDB_DATA_TYPE_UINT16: return Int(data.uint16)
        case MMDB_DATA_TYPE_UINT32: return Int(data.uint32)
        case MMDB_DATA_TYPE_INT32: return Int(data.int32)
        case MMDB_DATA_TYPE_UINT64: return Int(clamping: data.uint64)
        default: return nil
        }
    }
}

/// The GeoIP database could not be used.
public struct GeoIPError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
