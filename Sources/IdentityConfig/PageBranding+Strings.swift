import IdentityCore
import PageLanguages

extension BrokerConfigReader {
    /// `branding.strings`: per language (`de`, `pt-BR` …) a map of message id (the English
    /// wording, as `idconnect page-strings` lists them) to the operator's text. Unknown ids and
    /// changed placeholders are problems (a typo must not silently keep the shipped wording); a
    /// language the broker does not ship must give every message (a page half in English is no
    /// translation).
    func readStrings(_ reader: ConfigReader) -> [String: [String: String]] {
        let known = Set(PageCatalog.messages.map(PageCatalog.normalized))
        var result: [String: [String: String]] = [:]
        for language in reader.keys {
            guard LanguageChoice.isWellFormed(language) else {
                reader.problem(language, "is not a language tag (like de, fr-CA or pt-BR)")
                continue
            }
            guard let texts = reader.stringMap(language) else { continue }
            var accepted: [String: String] = [:]
            for (message, text) in texts {
                let id = PageCatalog.normalized(message)
                guard known.contains(id) else {
                    reader.problem(language, "'\(message.prefix(80))' is not a message of the hosted pages (idconnect page-strings lists them)")
                    continue
                }
                guard !text.isEmpty, text.utf8.count <= 1000 else {
                    reader.problem(language, "the text for '\(message.prefix(80))' must be 1 to 1000 bytes")
                    continue
                }
                guard PageCatalog.placeholders(text) == PageCatalog.placeholders(id), !PageCatalog.hasStrayBraces(text) else {
                    let wanted = PageCatalog.placeholders(id)
                    reader.problem(language, "the text for '\(message.prefix(80))' " + (wanted.isEmpty
                        ? "may not contain placeholders or {{ }}"
                        : "must keep the placeholders " + wanted.joined(separator: " ") + " and add no other {{ }}"))
                    continue
                }
                accepted[id] = text
            }
            if !PageCatalog.shippedLanguages.contains(language.lowercased()) {
                let missing = known.subtracting(accepted.keys)
                if !missing.isEmpty {
                    reader.problem(language, "adds a language the broker does not ship, so it must give all \(known.count) messages; "
                                   + "\(missing.count) are missing (first: '\(missing.sorted().first!.prefix(60))')")
                }
            }
            result[language] = accepted
        }
        return result
    }

    /// An auth service's `locale`: a language the broker ships or the service's branding adds.
    func readLocale(_ reader: ConfigReader, branding: PageBranding?) -> String? {
        guard let locale = reader.string("locale") else { return nil }
        let available = PageCatalog.shippedLanguages + (branding?.strings.keys.map { $0 } ?? [])
        guard let match = LanguageChoice.match(locale, available) else {
            reader.problem("locale", "'\(locale)' is not a language of the hosted pages ("
                           + PageCatalog.shippedLanguages.joined(separator: ", ") + ", or one added under branding.strings)")
            return nil
        }
        return match
    }
}
