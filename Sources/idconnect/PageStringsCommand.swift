import ArgumentParser
import Foundation
import PageLanguages

/// `idconnect page-strings`: every message of the hosted pages with its wording in one language,
/// as YAML to paste under `branding.strings` and edit (docs/languages.md).
struct PageStringsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page-strings",
        abstract: "Print the hosted pages' messages (English ids) with their wording in a language, as branding.strings YAML.")

    @Option(help: "Language of the wording: en, de, fr, es or ru.") var language: String = "en"

    func run() throws {
        guard let language = LanguageChoice.match(language, PageCatalog.shippedLanguages) else {
            throw ValidationError("'\(self.language)' is not a shipped language (\(PageCatalog.shippedLanguages.joined(separator: ", "))).")
        }
        let words = PageWords(language: language)
        var lines = ["strings:", "  \(language):"]
        for message in PageCatalog.messages {
            lines.append("    \(Self.quoted(message)): \(Self.quoted(words(message)))")
        }
        print(lines.joined(separator: "\n"))
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
