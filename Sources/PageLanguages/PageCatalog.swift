import Synchronization

/// The shipped page catalogs (docs/languages.md): every message of every hosted page, with its
/// English wording as the id, in English, German, French, Spanish and Russian.
public enum PageCatalog {
    /// Languages with a complete catalog, English first.
    public static let shippedLanguages = ["en", "de", "fr", "es", "ru"]

    /// Message ids in the catalog's spacing: whitespace runs become one space, ends trimmed
    /// (a template may wrap a long sentence over two lines).
    public static func normalized(_ message: String) -> String {
        var result = ""
        result.reserveCapacity(message.utf8.count)
        var pendingSpace = false
        for character in message {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result.append(character)
        }
        return result
    }

    /// Whether `message` is one of `messages` (in any spacing).
    public static func isMessage(_ message: String) -> Bool { known.contains(normalized(message)) }

    private static let known = Set(messages.map(normalized))

    private static let misses = Mutex<Set<String>>([])

    /// A page showed `message` in English because `language` has no wording for it (or it is
    /// not a catalog message at all): kept for `missed()` (the catalog tests walk every page and
    /// expect none). At most 1000 are kept.
    static func noteMiss(_ message: String, language: String) {
        misses.withLock { found in
            if found.count < 1000 { found.insert("\(language): \(normalized(message))") }
        }
    }

    /// Every miss noted since the process started, as `lang: message`.
    public static func missed() -> Set<String> { misses.withLock { $0 } }

    /// The translations of `language` (exact tag, lowercased), keyed by message id; empty for
    /// English and for a language not shipped.
    static func table(_ language: String) -> [String: String] {
        tables[language.lowercased()] ?? [:]
    }

    private static let tables: [String: [String: String]] = {
        var tables: [String: [String: String]] = [:]
        for (language, raw) in [("de", german), ("fr", french), ("es", spanish), ("ru", russian)] {
            var table: [String: String] = [:]
            for (message, text) in raw { table[normalized(message)] = text }
            tables[language] = table
        }
        return tables
    }()

    /// Whether `text` has `{{` or `}}` outside its placeholders: in a template they would start
    /// Mustache tags the page never meant (a wording must not change what the page renders).
    public static func hasStrayBraces(_ text: String) -> Bool {
        var rest = text
        for placeholder in placeholders(text) { rest = rest.replacingOccurrences(of: placeholder, with: "") }
        return rest.contains("{{") || rest.contains("}}")
    }

    /// `{0}`, `{1}` … and `{{name}}` placeholders of a message or translation, sorted: a
    /// translation must keep exactly its message's.
    public static func placeholders(_ text: String) -> [String] {
        let characters = Array(text)
        var found: [String] = []
        var index = 0
        while index < characters.count {
            guard characters[index] == "{" else { index += 1; continue }
            var braces = 0
            while index + braces < characters.count, characters[index + braces] == "{", braces < 3 { braces += 1 }
            let closing = Array(repeating: Character("}"), count: braces)
            var end = index + braces
            while end + braces <= characters.count, Array(characters[end..<end + braces]) != closing { end += 1 }
            guard end + braces <= characters.count else { break }
            found.append(String(characters[index..<end + braces]))
            index = end + braces
        }
        return found.sorted()
    }
}
