/// The device model in an Android User-Agent ("Linux; Android 14; Pixel 7") and its maker.
enum AndroidModel {
    /// Model-name prefixes and the maker they belong to; checked in order, case-sensitively.
    static let makers: [(prefix: String, maker: String)] = [
        ("SM-", "Samsung"), ("GT-", "Samsung"), ("SGH-", "Samsung"), ("SCH-", "Samsung"), ("SHV-", "Samsung"),
        ("Pixel", "Google"), ("Nexus", "Google"),
        ("Redmi", "Xiaomi"), ("POCO", "Xiaomi"), ("Mi ", "Xiaomi"), ("MI ", "Xiaomi"),
        ("moto", "Motorola"), ("Moto", "Motorola"),
        ("LG-", "LG"), ("LM-", "LG"),
        ("ONEPLUS", "OnePlus"), ("OnePlus", "OnePlus"),
        ("HUAWEI", "Huawei"), ("Nokia", "Nokia"), ("Lenovo", "Lenovo"), ("KF", "Amazon"),
    ]

    /// Comment parts that are never a model: the platform, locale, WebView flag, Chrome's reduced "K".
    private static func isNoise(_ part: String) -> Bool {
        if ["U", "K", "wv", "Mobile", "Tablet", "Linux", "arm", "arm64", "x86_64"].contains(part) { return true }
        if part.hasPrefix("Android") || part.hasPrefix("rv:") || part.hasPrefix("Linux ") { return true }
        return isLocale(part)
    }

    /// "en-us", "ru_RU", "ko": a language tag some old Android browsers put in the comment.
    private static func isLocale(_ part: String) -> Bool {
        let pieces = part.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        guard let language = pieces.first, language.count == 2, language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return pieces.count == 1 || (pieces.count == 2 && pieces[1].count == 2 && pieces[1].allSatisfy { $0.isASCII && $0.isLetter })
    }

    /// The model from the comment part after "Android …", without " Build/…" or a "SAMSUNG " prefix.
    static func model(in parts: [String]) -> String? {
        guard let android = parts.firstIndex(where: { $0.hasPrefix("Android") }) else { return nil }
        for part in parts[(android + 1)...] where !isNoise(part) {
            var model = Substring(part)
            if let build = model.firstRange(of: " Build/") { model = model[..<build.lowerBound] }
            if model.hasPrefix("Build/") { continue }
            if model.hasPrefix("SAMSUNG ") { model = model.dropFirst("SAMSUNG ".count) }
            return VersionText.model(model)
        }
        return nil
    }

    /// Amazon Fire tablets: "KF" and two or more capital letters ("KFTRWI", "KFMAWI").
    static func isKindleFire(_ model: String) -> Bool {
        model.count >= 4 && model.hasPrefix("KF") && model.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }

    /// "Google Pixel 7", "Samsung SM-G991B", "Xiaomi Redmi Note 8"; the bare model when the maker is
    /// unknown or the model already starts with it ("LG-L160L", "Nokia 3.4").
    static func displayName(_ model: String) -> String {
        guard let entry = makers.first(where: { model.hasPrefix($0.prefix) }) else { return model }
        guard model.uppercased().hasPrefix(entry.maker.uppercased()) else { return "\(entry.maker) \(model)" }
        let rest = model.dropFirst(entry.maker.count)
        return rest.first == " " ? entry.maker + rest : model  // "ONEPLUS A6003" → "OnePlus A6003"
    }
}

extension VersionText {
    /// A model name fit to show: printable ASCII, 1 to 48 characters, trimmed; nil otherwise.
    static func model(_ raw: some StringProtocol) -> String? {
        let trimmed = raw.trimmingSpaces()
        guard !trimmed.isEmpty, trimmed.count <= 48,
            trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || " .-_+()".contains($0)) })
        else { return nil }
        return trimmed
    }
}
