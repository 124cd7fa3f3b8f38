/// Which language a page is in (docs/languages.md): the first of the app's `ui_locales` (OIDC
/// Core 3.1.2.1) the broker has, else the best of the browser's `Accept-Language`, else the auth
/// service's `locale`, else English. A regional tag falls back to its language (`de-AT` → `de`).
public enum LanguageChoice {
    public static func choose(uiLocales: String?, acceptLanguage: String?, serviceDefault: String?,
                              available: [String]) -> String {
        for tag in uiLocalesList(uiLocales) {
            if let match = match(tag, available) { return match }
        }
        for tag in acceptLanguageList(acceptLanguage) {
            if let match = match(tag, available) { return match }
        }
        if let serviceDefault, let match = match(serviceDefault, available) { return match }
        return "en"
    }

    /// `ui_locales`: space-separated tags in order of preference (at most 20 read).
    public static func uiLocalesList(_ value: String?) -> [String] {
        guard let value, value.utf8.count <= 1000 else { return [] }
        return value.split(separator: " ").prefix(20).map(String.init)
    }

    /// `Accept-Language` (RFC 9110 §12.5.4): tags by falling `q`, the order given where equal;
    /// `q=0` and `*` dropped; at most 20 read.
    public static func acceptLanguageList(_ header: String?) -> [String] {
        guard let header, header.utf8.count <= 1000 else { return [] }
        var ranked: [(tag: String, q: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(20).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: " \t") }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            if q > 0, q <= 1 { ranked.append((tag, q, order)) }
        }
        return ranked.sorted { $0.q != $1.q ? $0.q > $1.q : $0.order < $1.order }.map(\.tag)
    }

    /// A BCP 47-shaped tag: 2–8 ASCII letters, then `-`/`_` and ASCII letters or digits; at most 35.
    public static func isWellFormed(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard tag.utf8.count <= 35, let first = parts.first, (2...8).contains(first.count),
              first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// `tag` among `available`: the same tag (any case), else its primary language.
    public static func match(_ tag: String, _ available: [String]) -> String? {
        let wanted = tag.lowercased()
        guard isWellFormed(wanted) else { return nil }
        if let exact = available.first(where: { $0.lowercased() == wanted }) { return exact }
        let primary = wanted.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? wanted
        return available.first { $0.lowercased() == primary }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
