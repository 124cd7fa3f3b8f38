import Foundation
import Testing
import IdentityCore
@testable import OAuthEngine

/// The HTTP Basic parser (RFC 7617) that client authentication reads: it works on bytes for speed,
/// so it is held here to what the `String` and Foundation version accepted and refused.
@Suite struct BasicCredentialsTests {
    private func parse(_ header: String?) throws -> BasicCredentials? {
        try BasicCredentials(authorizationHeader: header)
    }

    private func encoded(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test("user and password split at the first colon; the scheme in any case; spaces and tabs around the value")
    func parsesCredentials() throws {
        #expect(try parse("Basic " + encoded("app:secret")) == BasicCredentials(user: "app", password: "secret"))
        #expect(try parse("bAsIc \t" + encoded("kid_x:p:w:d") + " \t") == BasicCredentials(user: "kid_x", password: "p:w:d"))
        #expect(try parse("BASIC " + encoded(":")) == BasicCredentials(user: "", password: ""))
        #expect(try parse("Basic " + encoded("ünïcødé:пароль")) == BasicCredentials(user: "ünïcødé", password: "пароль"))
    }

    @Test("every padding length decodes", arguments: ["a:", "ab:", "abc:", "a:b", "ab:cd", "app:secret1"])
    func padding(_ text: String) throws {
        let header = "Basic " + encoded(text)
        let colon = text.firstIndex(of: ":")!
        #expect(try parse(header) == BasicCredentials(user: String(text[..<colon]), password: String(text[text.index(after: colon)...])))
    }

    @Test("another scheme, no header or a bare scheme is not Basic (nil, no error)")
    func notBasic() throws {
        #expect(try parse(nil) == nil)
        #expect(try parse("Bearer " + encoded("a:b")) == nil)
        #expect(try parse("Basic ") == nil)
        #expect(try parse("Basi") == nil)
        #expect(try parse("Basicx" + encoded("a:b")) == nil)
    }

    @Test("malformed Basic credentials are invalid_client",
          arguments: ["Basic YTpi=",            // padding that leaves a bad length
                      "Basic YWI6Yw",           // padding missing
                      "Basic YWI6Yw===",        // three padding characters
                      "Basic YW=6Yw==",         // padding inside
                      "Basic YWI6Y-_=",         // the base64url alphabet
                      "Basic YWI6 Yw==",        // a space inside
                      "Basic " + Data("no colon".utf8).base64EncodedString(),
                      "Basic " + Data([0x61, 0x3A, 0xFF, 0xFE]).base64EncodedString(), // not UTF-8
                      "Basic " + String(repeating: "QUFB", count: 1025)])              // over 4 KB
    func malformed(_ header: String) {
        #expect(throws: OAuthError.self) { try parse(header) }
    }

    @Test("agrees with Foundation's decoder on random credentials")
    func agreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<1_000 {
            // Printable ASCII, and in every other round any byte (mostly not UTF-8).
            let range: ClosedRange<UInt8> = round.isMultiple(of: 2) ? 0x20...0x7E : 0x00...0xFF
            let length = Int.random(in: 1...40, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: range, using: &generator) }
            let value = Data(bytes).base64EncodedString()
            let expected: BasicCredentials? = String(data: Data(bytes), encoding: .utf8).flatMap { text in
                text.firstIndex(of: ":").map {
                    BasicCredentials(user: String(text[..<$0]), password: String(text[text.index(after: $0)...]))
                }
            }
            if let expected {
                #expect(try parse("Basic " + value) == expected)
            } else {
                #expect(throws: OAuthError.self) { try parse("Basic " + value) }
            }
        }
    }
}
