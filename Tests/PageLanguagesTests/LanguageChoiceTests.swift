import PageLanguages
import Testing

/// Which language a page is in: `ui_locales`, then `Accept-Language`, then the service's
/// `locale`, then English (docs/languages.md).
@Suite struct LanguageChoiceTests {
    let shipped = PageCatalog.shippedLanguages

    @Test func uiLocalesComeFirst() {
        #expect(LanguageChoice.choose(uiLocales: "fr-CA de", acceptLanguage: "ru", serviceDefault: "es", available: shipped) == "fr")
        // A tag the broker lacks is skipped, not a stop.
        #expect(LanguageChoice.choose(uiLocales: "ja de", acceptLanguage: "ru", serviceDefault: nil, available: shipped) == "de")
    }

    @Test func acceptLanguageByQuality() {
        #expect(LanguageChoice.choose(uiLocales: nil, acceptLanguage: "en;q=0.3, ru;q=0.9, de", serviceDefault: nil, available: shipped) == "de")
        #expect(LanguageChoice.choose(uiLocales: nil, acceptLanguage: "ja, es-MX;q=0.8", serviceDefault: "de", available: shipped) == "es")
        #expect(LanguageChoice.acceptLanguageList("de;q=0, fr;q=0.5, *") == ["fr"])
    }

    @Test func serviceDefaultThenEnglish() {
        #expect(LanguageChoice.choose(uiLocales: nil, acceptLanguage: "ja", serviceDefault: "ru", available: shipped) == "ru")
        #expect(LanguageChoice.choose(uiLocales: nil, acceptLanguage: nil, serviceDefault: nil, available: shipped) == "en")
    }

    @Test func hostileValuesAreIgnored() {
        let long = String(repeating: "de,", count: 500)
        #expect(LanguageChoice.choose(uiLocales: long, acceptLanguage: long, serviceDefault: nil, available: shipped) == "en")
        #expect(LanguageChoice.choose(uiLocales: "../../etc <script>", acceptLanguage: "q=1;;;,", serviceDefault: nil, available: shipped) == "en")
        #expect(!LanguageChoice.isWellFormed("d"))
        #expect(!LanguageChoice.isWellFormed("de-"))
        #expect(LanguageChoice.isWellFormed("pt-BR"))
    }

    @Test func addedLanguagesAndRightToLeft() {
        #expect(LanguageChoice.choose(uiLocales: "it-IT", acceptLanguage: nil, serviceDefault: nil, available: shipped + ["it"]) == "it")
        #expect(PageWords(language: "ar").direction == "rtl")
        #expect(PageWords(language: "de").direction == "ltr")
    }
}
