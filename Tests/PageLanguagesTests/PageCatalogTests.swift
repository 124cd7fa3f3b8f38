@testable import PageLanguages
import Testing

/// The shipped catalogs are complete and faithful: every message in every language, the same
/// placeholders and emphasis, nothing the pages do not use (docs/languages.md).
@Suite struct PageCatalogTests {
    static let foreign = PageCatalog.shippedLanguages.filter { $0 != "en" }

    @Test(arguments: foreign)
    func everyMessageInEveryLanguage(_ language: String) {
        let table = PageCatalog.table(language)
        let messages = Set(PageCatalog.messages.map(PageCatalog.normalized))
        let missing = messages.subtracting(table.keys)
        let extra = Set(table.keys).subtracting(messages)
        #expect(missing.isEmpty, "\(language) lacks \(missing.count): \(missing.sorted().prefix(5))")
        #expect(extra.isEmpty, "\(language) has words for messages no page shows: \(extra.sorted().prefix(5))")
        for (message, text) in table {
            #expect(PageCatalog.placeholders(text) == PageCatalog.placeholders(message), "\(language): '\(message)' → '\(text)'")
            #expect(!PageCatalog.hasStrayBraces(text), "\(language): '\(text)'")
            for tag in ["<strong>", "</strong>"] {
                #expect(Self.count(tag, in: text) == Self.count(tag, in: message), "\(language): \(message)")
            }
            #expect(text.contains { !$0.isWhitespace })
        }
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.split(separator: needle, omittingEmptySubsequences: false).count - 1
    }

    @Test func messagesAreUniqueAndTidy() {
        let normalized = PageCatalog.messages.map(PageCatalog.normalized)
        #expect(Set(normalized).count == normalized.count, "a message is listed twice")
        #expect(normalized == PageCatalog.messages, "messages are listed in their normalized spacing")
    }

    @Test func interpolationBecomesPlaceholders() {
        let text: PageText = "Removed \("Zebra") (\("kid_1")): gone."
        #expect(text.format == "Removed {0} ({1}): gone." && text.arguments == ["Zebra", "kid_1"])
        #expect(text.english == "Removed Zebra (kid_1): gone.")
        #expect(PageText(verbatim: "{0} as is").english == "{0} as is")
        #expect(PageText("One.").then("Two.").then(nil).english == "One. Two.")
    }

    @Test func placeholdersAreFound() {
        #expect(PageCatalog.placeholders("Signed in {{{at}}} as {{name}} ({0}, {1})") == ["{0}", "{1}", "{{name}}", "{{{at}}}"].sorted())
    }

    @Test func sentencesAndNumbers() {
        #expect(PageWords.sentences("One. Two? Three! Four") == ["One.", "Two?", "Three!", "Four"])
        let (pattern, numbers) = PageWords.numbersAsPlaceholders("Wait 30 seconds, then 2 more.")
        #expect(pattern == "Wait {0} seconds, then {1} more." && numbers == ["30", "2"])
        let german = PageWords(language: "de")
        let message = "Too many failed sign-ins for this username. Wait 30 seconds, then try again."
        let expected = german("Too many failed sign-ins for this username.") + " "
            + PageText.fill(german("Wait {0} seconds, then try again."), ["30"])
        #expect(german.translation(ofMessage: message) == expected)
        #expect(german.translation(ofMessage: "Not a message at all.") == nil)
        // An identity source's own words (a run-time message) stay as they are, and are no miss.
        #expect(german(PageText(message: "Wrong code from elsewhere.")) == "Wrong code from elsewhere.")
        #expect(!PageCatalog.missed().contains { $0.hasSuffix("Wrong code from elsewhere.") })
    }

    @Test func operatorWordingWins() {
        let words = PageWords(language: "de", overrides: ["Sign   in": "Einloggen"])
        #expect(words("Sign in") == "Einloggen")
        #expect(words("Password") == PageWords(language: "de")("Password"))
    }
}
