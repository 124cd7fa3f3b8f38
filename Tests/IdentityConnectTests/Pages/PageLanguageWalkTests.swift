import Foundation
@testable import IdentityApp
import PageLanguages
import Testing

/// Every hosted page in every shipped language (docs/languages.md): rendered by `Pages` from
/// sample models, each must be wholly in its language — `<html lang>` set, no catalog miss (a
/// message a language lacks), no text or label left as the English page has it unless the
/// language words it the same, no placeholder left unfilled.
@Suite("Pages: every page in every language")
struct PageLanguageWalkTests {
    /// Values of the samples (names, codes, addresses): the same in every language.
    static let values = ["Zebra Books", "Zebra Notes", "Qorp ID", "Alice Zed", "alice@zebra.example", "alice", "zadmins", "kid_z",
                         "Firefox 128", "Linux", "192.0.2.1", "dev1", "zapp", "ios", "Zorp key", "zorp", "zapi", "ABCD EFGH", "ABCD",
                         "BCDF-GHJK", "BCDF", "1111-2222", "https://api.zebra.example", "zz-internal detail 42", "invalid_request",
                         "invalid_grant", "Zorp question from the identity source?", "2027-01-15 08:00 UTC", "2027-01-15 08:01 UTC", "120 s"]

    static func render(_ language: String) async throws -> [(String, String)] {
        try await PageLanguageRequest.$preferences.withValue(.init(acceptLanguage: language)) {
            try await PageSamples.all(Pages())
        }
    }

    /// The words a person reads or hears: text between tags (scripts and styles left out) and
    /// the labels of `aria-label`, `alt` and the passkey name's preset value.
    static func words(_ html: String) -> [String] {
        var text = html
        for block in ["script", "style"] {
            text = text.replacingOccurrences(of: "<\(block)[^>]*>[\\s\\S]*?</\(block)>", with: "", options: .regularExpression)
        }
        // The error's own description, shown in English on purpose (marked `lang="en"`).
        text = text.replacingOccurrences(of: "<p [^>]*lang=\"en\"[^>]*>[^<]*</p>", with: "", options: .regularExpression)
        var found: [String] = []
        let nodes = try! NSRegularExpression(pattern: ">([^<>]+)<")
        let labels = try! NSRegularExpression(pattern: "(?:aria-label|alt|data-refused|data-copied|data-unsupported)=\"([^\"]+)\"")
        for expression in [nodes, labels] {
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let value = String(text[Range(match.range(at: 1), in: text)!]).trimmingCharacters(in: .whitespacesAndNewlines)
                if value.contains(where: \.isLetter) { found.append(value) }
            }
        }
        return found
    }

    @Test("each shipped language: html lang and dir, no miss, nothing left in English, no placeholder unfilled",
          arguments: PageCatalog.shippedLanguages.filter { $0 != "en" })
    func wholeLanguage(_ language: String) async throws {
        let english = try await Self.render("en")
        let foreign = try await Self.render(language)
        let words = PageWords(language: language)
        let sameWording = Set(PageCatalog.messages.filter { words.lookup($0) == $0 })
        for ((name, englishPage), (_, page)) in zip(english, foreign) {
            if name == "form_post answer" || name == "upstream auto-post" {
                #expect(page.contains("<html lang=\"\(language)\" dir=\"ltr\">"), "\(name)")
            } else {
                #expect(page.hasPrefix("<!doctype html>\n<html lang=\"\(language)\" dir=\"ltr\">"), "\(name): \(page.prefix(80))")
            }
            let englishWords = Set(Self.words(englishPage))
            for text in Self.words(page) where englishWords.contains(text) {
                var rest = text
                for value in Self.values.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: value, with: "") }
                let leftOver = rest.contains(where: \.isLetter) && !sameWording.contains(text)
                #expect(!leftOver, "\(language) \(name): '\(text)' is still English")
                #expect(!text.contains("{{") && !text.range(of: "\\{[0-9]\\}", options: .regularExpression).map { _ in true }.isSome,
                        "\(language) \(name): a placeholder is unfilled in '\(text)'")
            }
        }
        let missed = PageCatalog.missed().filter { $0.hasPrefix("\(language): ") || $0.hasPrefix("en: ") }
        #expect(missed.isEmpty, "messages the catalog lacks: \(missed.sorted())")
    }

    @Test("English: every message the pages show is in the message list (PageCatalog.messages)")
    func englishIsListed() async throws {
        let pages = try await Self.render("en")
        #expect(pages.allSatisfy { $0.1.contains("lang=\"en\"") })
        let missed = PageCatalog.missed().filter { $0.hasPrefix("en: ") }
        #expect(missed.isEmpty, "not in PageCatalog.messages: \(missed.sorted())")
    }

    @Test("an error's description the catalog lacks: the code's meaning in the language, the description below marked English")
    func unknownErrorWords() async throws {
        let pages = try await Self.render("de")
        let page = try #require(pages.first { $0.0 == "error, unknown words" }?.1)
        #expect(page.contains(PageWords(language: "de")("This sign-in link has expired or was used already.")))
        #expect(page.contains(#"<p class="muted" id="details" lang="en">zz-internal detail 42</p>"#))
        let numbered = try #require(pages.first { $0.0 == "login with numbers in its error" }?.1)
        let wait = PageText.fill(PageWords(language: "de")("Wait {0} seconds, then try again."), ["30"])
        #expect(numbered.contains(wait), "run-time messages are translated sentence by sentence, numbers kept")
    }
}

extension Optional {
    fileprivate var isSome: Bool { self != nil }
}
