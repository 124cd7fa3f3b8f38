/// A User-Agent header split into product tokens ("Chrome/120.0") and comment parts
/// ("Windows NT 10.0", "Win64"), as RFC 9110 §10.1.5 describes it, tolerant of anything.
///
/// Control characters count as spaces, unbalanced parentheses end at the end of the text, and the
/// number of tokens kept is capped, so the work done is linear in the (already bounded) input.
struct UserAgentTokens {
    /// A `name/version` product token; `version` is nil when there is no slash.
    struct Product: Hashable {
        let name: String
        let version: String?

        init(_ token: some StringProtocol) {
            if let slash = token.firstIndex(of: "/") {
                name = String(token[..<slash])
                let rest = token[token.index(after: slash)...]
                version = rest.isEmpty ? nil : String(rest)
            } else {
                name = String(token)
                version = nil
            }
        }
    }

    /// The most products and the most comment parts kept.
    static let maximumTokens = 64

    private(set) var products: [Product] = []
    /// Every comment's parts, split on ";" and trimmed, in order of appearance.
    private(set) var commentParts: [String] = []
    /// Whether the header starts like a browser's ("Mozilla/…" or "Opera/…").
    let isBrowserLike: Bool

    init(_ text: String) {
        isBrowserLike = text.hasPrefix("Mozilla/") || text.hasPrefix("Opera/")
        var token = ""
        var comment = ""
        var depth = 0
        for scalar in text.unicodeScalars {
            let character: Unicode.Scalar = (scalar.value < 0x20 || scalar.value == 0x7F) ? " " : scalar
            if depth > 0 {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if depth == 0 {
                    addComment(comment)
                    comment = ""
                } else {
                    comment.unicodeScalars.append(character)
                }
            } else if character == "(" || character == ")" || character == " " {
                addProduct(token)
                token = ""
                if character == "(" { depth = 1 }
            } else {
                token.unicodeScalars.append(character)
            }
        }
        addProduct(token)
        if depth > 0 { addComment(comment) }
    }

    private mutating func addProduct(_ token: String) {
        guard !token.isEmpty, products.count < Self.maximumTokens else { return }
        products.append(Product(token))
    }

    private mutating func addComment(_ comment: String) {
        for part in comment.split(separator: ";") where commentParts.count < Self.maximumTokens {
            // A stray "(" from unbalanced nesting is dropped; a model like "moto g(7)" keeps its own.
            let trimmed = part.drop { $0 == " " || $0 == "(" }.trimmingSpaces()
            if !trimmed.isEmpty { commentParts.append(trimmed) }
        }
    }

    /// The first product token with exactly this name.
    func product(_ name: String) -> Product? {
        products.first { $0.name == name }
    }

    /// Whether a comment part equals `text` or begins with it followed by a space or slash.
    func hasCommentPart(_ text: String) -> Bool {
        commentParts.contains { $0 == text || $0.hasPrefix(text + " ") || $0.hasPrefix(text + "/") }
    }

    /// Whether `text` occurs anywhere in a product name or a comment part (case-insensitive).
    func mentions(_ text: String) -> Bool {
        let needle = text.lowercased()
        return commentParts.contains { $0.lowercased().contains(needle) }
            || products.contains { $0.name.lowercased().contains(needle) }
    }

    /// Whether a phone is hinted: a `Mobile` product ("Mobile Safari", "Mobile/15E148") or comment part.
    var hintsMobile: Bool {
        product("Mobile") != nil || commentParts.contains("Mobile")
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    func trimmingSpaces() -> String {
        guard let first = firstIndex(where: { $0 != " " }),
            let last = lastIndex(where: { $0 != " " })
        else { return "" }
        return String(self[first...last])
    }
}
