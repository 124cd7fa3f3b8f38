import Foundation
import IdentityCore

/// Resolves `${env:NAME}` and `${file:PATH}` references (docs/configuration.md, "References").
///
/// References are swapped for plain placeholder words before YAML parsing, so they may stand
/// anywhere a word may (also inside flow collections like `[ ${env:IAT} ]`, where `{` would
/// otherwise start a map), and are resolved afterwards, scalar by scalar.
struct SecretReferences {
    struct Reference {
        var kind: String
        var argument: String
    }

    private(set) var references: [String: Reference] = [:]
    let environment: [String: String]
    let baseDirectory: URL

    init(environment: [String: String], baseDirectory: URL) {
        self.environment = environment
        self.baseDirectory = baseDirectory
    }

    private static let pattern = try! NSRegularExpression(pattern: #"\$\{(env|file):([^}\n]*)\}"#)

    /// Replaces every reference in `text` with a unique placeholder word.
    mutating func protect(_ text: String) -> String {
        let nsText = text as NSString
        var result = ""
        var cursor = 0
        for match in Self.pattern.matches(in: text, range: NSRange(location: 0, length: nsText.length)) {
            result += nsText.substring(with: NSRange(location: cursor, length: match.range.location - cursor))
            let placeholder = "idcref\(references.count)x\(UUID().uuidString.prefix(8))"
            references[placeholder] = Reference(
                kind: nsText.substring(with: match.range(at: 1)),
                argument: nsText.substring(with: match.range(at: 2)))
            result += placeholder
            cursor = match.range.location + match.range.length
        }
        result += nsText.substring(from: cursor)
        return result
    }

    /// Puts resolved values back into a scalar. Returns the text, whether a reference was
    /// involved, and a reason when one could not be resolved.
    func resolve(_ scalar: String) -> (text: String, isSecret: Bool, failure: String?) {
        guard scalar.contains("idcref") else { return (scalar, false, nil) }
        var text = scalar
        var used = false
        for (placeholder, reference) in references where text.contains(placeholder) {
            used = true
            switch value(of: reference) {
            case .success(let value): text = text.replacingOccurrences(of: placeholder, with: value)
            case .failure(let reason): return (text, true, reason.message)
            }
        }
        return (text, used, nil)
    }

    struct Unresolvable: Error { var message: String }

    /// The largest file a `${file:}` reference reads (keys, certificates, JWKS and secrets are far smaller).
    static let maxFileBytes = 1 << 20

    private func value(of reference: Reference) -> Result<String, Unresolvable> {
        switch reference.kind {
        case "env":
            let name = reference.argument
            guard !name.isEmpty else { return .failure(.init(message: "empty ${env:} reference")) }
            guard let value = environment[name] else {
                return .failure(.init(message: "environment variable \(name) is not set"))
            }
            return .success(value)
        default:
            let path = reference.argument
            guard !path.isEmpty else { return .failure(.init(message: "empty ${file:} reference")) }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
            let data: Data
            switch ConfigFileReading.read(url.path, maxBytes: Self.maxFileBytes) {
            case .success(let read): data = read
            case .failure(.notRegularFile): return .failure(.init(message: "\(url.path) is not a regular file"))
            case .failure(.tooLarge(let limit)): return .failure(.init(message: "file \(url.path) is larger than \(limit / 1024) KiB"))
            case .failure(.unreadable): return .failure(.init(message: "cannot read file \(url.path)"))
            }
            guard let text = String(data: data, encoding: .utf8) else {
                return .failure(.init(message: "file \(url.path) is not UTF-8 text"))
            }
            var trimmed = Substring(text)
            while let last = trimmed.last, last == "\n" || last == "\r" { trimmed = trimmed.dropLast() }
            return .success(String(trimmed))
        }
    }
}
