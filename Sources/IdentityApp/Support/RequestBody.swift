import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// Reads OAuth parameters from query strings, form bodies and JSON bodies.
package enum RequestParameters {
    /// Query parameters, refusing repeats.
    static func query(_ request: Request) throws -> OAuthParameters {
        try OAuthParameters(pairs: decodeForm(request.uri.query ?? ""))
    }

    /// A form-encoded or JSON body (by Content-Type; form when none is given).
    static func body(_ request: Request, context: AppRequestContext,
                     maxValueLength: Int = OAuthParameters.maxValueLength) async throws -> OAuthParameters {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let contentType = request.headers.value(.contentType) ?? ""
        if contentType.hasASCIICaseInsensitivePrefix("application/json") {
            return try OAuthParameters(pairs: try decodeJSON(Data(buffer: buffer)), maxValueLength: maxValueLength)
        }
        if !contentType.isEmpty && !contentType.hasASCIICaseInsensitivePrefix("application/x-www-form-urlencoded") {
            throw OAuthError.invalidRequest("Send the parameters as application/x-www-form-urlencoded.")
        }
        // Straight from the buffer's bytes: through `Data` and Foundation's `String(data:encoding:)`
        // the body was copied twice per introspection or token call.
        guard let text = buffer.withUnsafeReadableBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw OAuthError.invalidRequest("The request body is not UTF-8.")
        }
        return try OAuthParameters(pairs: decodeForm(text), maxValueLength: maxValueLength)
    }

    /// `application/x-www-form-urlencoded` (also query strings). Bad percent-encoding is an error.
    /// Decoded on bytes: query strings carry 1 KB tokens on the validation hot path.
    package static func decodeForm(_ text: String) throws -> [(String, String)] {
        var text = text
        return try text.withUTF8 { bytes in
            var pairs: [(String, String)] = []
            var start = 0
            while start <= bytes.count {
                let end = offset(of: UInt8(ascii: "&"), in: UnsafeBufferPointer(rebasing: bytes[start...])).map { start + $0 } ?? bytes.count
                if end > start {
                    let pair = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    let equals = offset(of: UInt8(ascii: "="), in: pair) ?? pair.count
                    let name = try decodeComponent(UnsafeBufferPointer(rebasing: pair[0..<equals]))
                    let value = equals < pair.count ? try decodeComponent(UnsafeBufferPointer(rebasing: pair[(equals + 1)...])) : ""
                    pairs.append((name, value))
                }
                start = end + 1
            }
            return pairs
        }
    }

    private static func decodeComponent(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        guard offset(of: UInt8(ascii: "%"), in: bytes) != nil || offset(of: UInt8(ascii: "+"), in: bytes) != nil else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) else {
                    throw OAuthError.invalidRequest("The request has malformed percent-encoding.")
                }
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw OAuthError.invalidRequest("The request has malformed percent-encoding.")
        }
        return text
    }

    /// Where `byte` first occurs in `bytes`, found with `memchr`: the form's scans run over a
    /// 1 KB token on every introspection, faster than comparing byte by byte in Swift.
    private static func offset(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty,
              let found = memchr(base, Int32(byte), bytes.count) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// A flat JSON object; numbers and booleans become strings, nested values are refused.
    package static func decodeJSON(_ data: Data) throws -> [(String, String)] {
        guard case .object(let object)? = JSONValue(parsing: data) else {
            throw OAuthError.invalidRequest("The request body is not a JSON object.")
        }
        return try object.map { name, value in
            switch value {
            case .string(let text): return (name, text)
            case .int(let number): return (name, String(number))
            case .double(let number): return (name, String(number))
            case .bool(let flag): return (name, flag ? "true" : "false")
            case .null: return (name, "")
            case .array, .object:
                throw OAuthError.invalidRequest("The parameter '\(name.prefix(64))' must be a string.")
            }
        }
    }

    /// Basic client credentials, if the request carries them.
    static func basic(_ request: Request) throws -> BasicCredentials? {
        try BasicCredentials(authorizationHeader: request.headers.value(.authorization))
    }
}
