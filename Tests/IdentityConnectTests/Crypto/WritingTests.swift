import Foundation
import IdentityCore
import Testing

@Suite("Byte-level writers and readers on the validate path")
struct WritingTests {
    @Test("JSONValue serialization parses back to the same value and matches Foundation's reading")
    func roundTrip() throws {
        let value: JSONValue = .object([
            "text": .string("quote \" backslash \\ newline \n tab \t bell \u{07} é 😀 /slash"),
            "int": .int(-42), "big": .int(9_007_199_254_740_993), "double": .double(1.25), "whole": .double(3),
            "list": .array([.bool(true), .bool(false), .null, .array([])]), "nested": .object(["b": .int(1), "a": .int(2)]),
        ])
        let bytes = value.serialized
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(JSONValue(parsing: Data(bytes)) == value.replacingWholeDoubles())
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) == value.replacingWholeDoubles())
        #expect(text.contains(#""nested":{"a":2,"b":1}"#), "keys are sorted")
        #expect(text.contains(#"\u0007"#) && text.contains("/slash"))
        #expect(JSONValue.double(.nan).serialized == Array("null".utf8))
    }

    @Test("JSONMembers writes its members in their order, escaped, and parses back to the same object")
    func orderedMembers() throws {
        let members: JSONMembers = [
            "active": .bool(true), "scope": .string("openid \"x\""), "exp": .int(1_700_000_000),
            "aud": .array([.string("a"), .string("b")]), "nested": .object(["z": .null, "a": .double(0.5)]),
        ]
        let text = String(decoding: members.serialized, as: UTF8.self)
        #expect(text == #"{"active":true,"scope":"openid \"x\"","exp":1700000000,"aud":["a","b"],"nested":{"a":0.5,"z":null}}"#)
        let parsed = try #require(JSONValue(parsing: Data(members.serialized)))
        #expect(parsed == .object(Dictionary(uniqueKeysWithValues: members.members.map { ($0.key, $0.value) })))
        #expect(members["exp"] == .int(1_700_000_000) && members["missing"] == nil)
        let empty: JSONMembers = [:]
        #expect(empty.serialized == Array("{}".utf8))
    }

    @Test("strings are copied whole when nothing needs escaping and escaped byte by byte otherwise, small or large")
    func strings() {
        let long = String(repeating: "x", count: 300)
        let cases: [(String, String)] = [
            ("", #""""#), ("plain", #""plain""#), ("q\"", #""q\"""#), ("\u{1F}", #""\u001f""#), ("é😀", "\"é😀\""),
            (long, "\"\(long)\""), (long + "\\", "\"\(long)\\\\\""), ("\r\n" + long, "\"\\r\\n\(long)\""),
            (String(long.dropFirst(299)) + "\u{08}\u{0C}", #""x\b\f""#),
        ]
        for (text, json) in cases {
            #expect(String(decoding: JSONValue.string(text).serialized, as: UTF8.self) == json)
        }
    }

    @Test("HTTP header trimming and case-insensitive prefixes stay on ASCII")
    func asciiHelpers() {
        #expect("  \tabc def\t ".trimmingSpacesAndTabs == "abc def")
        #expect("".trimmingSpacesAndTabs == "" && "   ".trimmingSpacesAndTabs == "")
        #expect("Bearer \t tok en \t".dropFirst(7).trimmingSpacesAndTabs == "tok en")
        #expect("é  ".trimmingSpacesAndTabs == "é" && " \t ".dropFirst().trimmingSpacesAndTabs == "")
        #expect("BeArEr xyz".hasASCIICaseInsensitivePrefix("bearer "))
        #expect(!"Bearer".hasASCIICaseInsensitivePrefix("bearer "))
        #expect(!"Basic xyz".hasASCIICaseInsensitivePrefix("bearer "))
        // Substrings, non-ASCII text, bytes that lowercase to nothing ASCII, the empty prefix.
        #expect("xAPPLICATION/JSON; charset=utf-8".dropFirst().hasASCIICaseInsensitivePrefix("application/json"))
        #expect(!"applicatioñ/json".hasASCIICaseInsensitivePrefix("application/json"))
        #expect(!"[EARER x".hasASCIICaseInsensitivePrefix("bearer ") && !"{earer x".hasASCIICaseInsensitivePrefix("bearer "))
        #expect("é".hasASCIICaseInsensitivePrefix("") && !"".hasASCIICaseInsensitivePrefix("a"))
    }

    @Test("The sealed upstream token reads back the same with the fast path as with JSONDecoder")
    func upstreamToken() throws {
        let tokens = [
            UpstreamToken(token: "t"),
            UpstreamToken(token: "t\"x", refreshToken: "r", expiresAt: Date(timeIntervalSince1970: 1_800_000_000.5),
                          extra: ["id_token": "abc", "é": "😀"]),
            UpstreamToken(token: "t", expiresAt: Date(timeIntervalSinceReferenceDate: 1_000)),
        ]
        for token in tokens {
            let data = try JSONEncoder.sortedCompact.encode(token)
            #expect(try UpstreamToken.decode(data) == token)
        }
        #expect(throws: (any Error).self) { try UpstreamToken.decode(Data("{}".utf8)) }
        #expect(throws: (any Error).self) { try UpstreamToken.decode(Data("not json".utf8)) }
    }
}

private extension JSONValue {
    /// Whole doubles are written as integers, and read back as `.int`.
    func replacingWholeDoubles() -> JSONValue {
        switch self {
        case .double(let number) where number == number.rounded(): return .int(Int64(number))
        case .array(let items): return .array(items.map { $0.replacingWholeDoubles() })
        case .object(let object): return .object(object.mapValues { $0.replacingWholeDoubles() })
        default: return self
        }
    }
}

@Suite("BoundedCache")
struct BoundedCacheTests {
    @Test("keeps at most its capacity and starts over when full")
    func bounded() {
        let cache = BoundedCache<Int, String>(capacity: 3)
        for key in 0..<3 { cache.store("v\(key)", for: key) }
        #expect(cache.count == 3 && cache.value(for: 2) == "v2")
        cache.store("v3", for: 3)
        #expect(cache.count == 1 && cache.value(for: 0) == nil && cache.value(for: 3) == "v3")
        cache.removeAll()
        #expect(cache.count == 0)
    }
}
