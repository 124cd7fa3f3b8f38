import Foundation

/// The words of one page in one language (docs/languages.md): the shipped catalog of that
/// language with the operator's own wording (`branding.strings`) over it, English where neither
/// has a message.
public struct PageWords: Sendable {
    /// The language tag the page is in (`<html lang>`): `en`, `de` …
    public let language: String
    private let table: [String: String]
    private let overrides: [String: String]
    /// The language and the operator's wording, as one string: equal for equal words.
    public let identity: String

    /// `overrides`: message id → the operator's wording in `language` (ids in any spacing).
    public init(language: String, overrides: [String: String] = [:]) {
        self.language = language
        table = PageCatalog.table(language)
        var normalized: [String: String] = [:]
        for (message, text) in overrides { normalized[PageCatalog.normalized(message)] = text }
        self.overrides = normalized
        identity = ([language] + normalized.sorted { $0.key < $1.key }.map { "\($0.key)\u{1}\($0.value)" }).joined(separator: "\u{0}")
    }

    public static let english = PageWords(language: "en")

    /// `rtl` for a script written right to left (Arabic, Hebrew, Persian, Urdu …), else `ltr`.
    public var direction: String {
        let primary = language.split(separator: "-").first.map { $0.lowercased() } ?? ""
        return ["ar", "he", "fa", "ur", "yi", "ps", "sd", "dv", "ug", "ckb"].contains(primary) ? "rtl" : "ltr"
    }

    /// The wording of `message` (an English message id) in this language, or nil when neither
    /// the catalog nor the operator has one (English always has it: the id is its wording).
    public func lookup(_ message: String) -> String? {
        let id = PageCatalog.normalized(message)
        if id.isEmpty { return "" }
        if let own = overrides[id] { return own }
        if let shipped = table[id] { return shipped }
        return language == "en" ? id : nil
    }

    /// `message` in this language, falling back to its English wording (noted as a miss).
    public func callAsFunction(_ message: String) -> String {
        if let text = lookup(message), language != "en" || PageCatalog.isMessage(message) { return text }
        PageCatalog.noteMiss(message, language: language)
        return PageCatalog.normalized(message)
    }

    /// `text` in this language, its arguments filled in; verbatim text as is. A message known
    /// only at run time (an error's description) that the catalog lacks whole is translated
    /// sentence by sentence, numbers standing in for `{0}`, `{1}` …; else it stays English.
    public func callAsFunction(_ text: PageText) -> String {
        let first: String
        if text.isVerbatim {
            first = text.format
        } else if let translated = lookup(text.format), language != "en" || PageCatalog.isMessage(text.format) {
            first = PageText.fill(translated, text.arguments)
        } else if text.arguments.isEmpty, let translated = bySentence(text.format) {
            first = translated
        } else {
            if !text.isRunTime { PageCatalog.noteMiss(text.format, language: language) }
            first = PageText.fill(PageCatalog.normalized(text.format), text.arguments)
        }
        return text.following.isEmpty ? first : ([first] + text.following.map { self($0) }).joined(separator: " ")
    }

    /// A run-time message (an error's description) in this language, whole or sentence by
    /// sentence; nil when the catalogs cannot say it here (English always can: it is English).
    public func translation(ofMessage message: String) -> String? {
        if language == "en" { return PageCatalog.normalized(message) }
        return lookup(message) ?? bySentence(message)
    }

    /// `message` translated sentence by sentence (each a catalog message, or one with its
    /// numbers as placeholders: "Wait {0} seconds, then try again."), or nil.
    func bySentence(_ message: String) -> String? {
        let sentences = Self.sentences(PageCatalog.normalized(message))
        guard sentences.count > 1 || message.contains(where: \.isNumber) else { return nil }
        var translated: [String] = []
        for sentence in sentences {
            if PageCatalog.isMessage(sentence), let text = lookup(sentence) {
                translated.append(text)
                continue
            }
            let (pattern, numbers) = Self.numbersAsPlaceholders(sentence)
            guard !numbers.isEmpty, PageCatalog.isMessage(pattern), let text = lookup(pattern) else { return nil }
            translated.append(PageText.fill(text, numbers))
        }
        return translated.joined(separator: " ")
    }

    /// Sentences: split after `.`, `?` or `!` followed by a space.
    static func sentences(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character = " "
        for character in text {
            if character == " ", ".?!".contains(previous), !current.isEmpty {
                result.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// `text` with each run of digits replaced by `{0}`, `{1}` …, and the numbers.
    static func numbersAsPlaceholders(_ text: String) -> (String, [String]) {
        var pattern = ""
        var numbers: [String] = []
        var digits = ""
        for character in text + " " {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            if !digits.isEmpty {
                pattern += "{\(numbers.count)}"
                numbers.append(digits)
                digits = ""
            }
            pattern.append(character)
        }
        return (String(pattern.dropLast()), numbers)
    }
}
