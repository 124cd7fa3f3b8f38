import Foundation
import IdentityCore
import Testing

@Suite("Byte-level parsers on the hot path: JSON values and base64url")
struct ParsingTests {
    @Test("JSONValue parsing agrees with Foundation on valid documents")
    func valid() throws {
        let documents = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e\"\\\/\b\f\n\r\t"},"f":-1.5e3,"g":"\u00e9\ud83d\ude00","h":0}"#,
            "  [ 1 , 2.25 , \"x\" ]  ", "\"plain\"", "true", "null", "-0", "123456789012", "{}", "[]",
        ]
        for text in documents {
            let fast = try #require(JSONValue(parsing: Data(text.utf8)), "\(text)")
            let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(fast == foundation, "\(text)")
        }
        #expect(JSONValue(parsing: Data(#""\u00e9\ud83d\ude00""#.utf8)) == .string("é😀"))
    }

    @Test("JSONValue parsing refuses malformed and hostile input", arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", ".5", "-", "1e", "tru", "nul", "\"\u{01}\"", "\"\\x\"",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "[1] [2]", "{\"a\" 1}", "NaN", "Infinity", "1e999",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func invalid(_ text: String) {
        #expect(JSONValue(parsing: Data(text.utf8)) == nil)
    }

    @Test("base64url round trips and refuses padding, other alphabets and non-canonical tails")
    func base64url() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == Data(bytes))
            #expect(encoded == Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
        }
        for bad in ["a", "ab==", "a+b/", "ab c", "é", "YR", "YWF="] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
    }
}
