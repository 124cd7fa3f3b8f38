import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `PercentEncoding.unreserved` replaced Foundation's `addingPercentEncoding` in redirect URLs,
/// form bodies and SAML redirect parameters: it must give the same bytes for every input, so
/// that no client, IdP or upstream sees a difference.
@Suite("Percent-encoding of query and form values")
struct PercentEncodingTests {
    static let foundationSet = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func foundation(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: foundationSet) ?? ""
    }

    @Test("the same bytes as Foundation for every ASCII character, Unicode, and the empty string")
    func sameAsFoundation() {
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["", "plain-Value_1.2~", "a b&c=d/e?f#g%h+i", "https://app.example/cb?x=1",
                    "é", "e\u{301}", "日本語", "👩‍💻", "\u{0}", "line\r\nbreak", String(repeating: "ß", count: 300)]
        for sample in samples {
            #expect(PercentEncoding.unreserved(sample) == Self.foundation(sample), "\(Array(sample.utf8))")
        }
    }

    @Test("upper-case hex, every byte of a multi-byte character on its own")
    func shape() {
        #expect(PercentEncoding.unreserved("a/é") == "a%2F%C3%A9")
        #expect(PercentEncoding.unreserved("~._-") == "~._-")
    }
}

@Suite("RedirectURL.build")
struct RedirectURLBuildTests {
    @Test("parameters go after an existing query, found on the bytes even when a combining mark follows the `?`")
    func appendsToQuery() {
        #expect(RedirectURL.build("https://app.example/cb", [("state", "a b"), ("code", "c")]) == "https://app.example/cb?state=a%20b&code=c")
        #expect(RedirectURL.build("https://app.example/cb?x=1", [("skipped", nil), ("code", "c")]) == "https://app.example/cb?x=1&code=c")
        #expect(RedirectURL.build("https://app.example/cb?\u{301}", [("code", "c")]) == "https://app.example/cb?\u{301}&code=c")
        #expect(RedirectURL.build("https://app.example/cb", []) == "https://app.example/cb")
    }
}
