/// Finds the operating system in a User-Agent's comment parts.
///
/// Several platforms mention others for compatibility ("iPhone OS … like Mac OS X", "Windows Phone
/// 10.0; Android 6.0.1", "Linux; Android 14", "X11; CrOS"), so the checks run from the most specific
/// to the most generic and the first that matches wins.
enum OSDetection {
    /// Windows NT kernel versions and the marketing names users know them by.
    /// Windows 11 still sends "Windows NT 10.0", so it cannot be told apart and reads as "Windows 10".
    static let windowsReleases: [String: String] = [
        "10.0": "10", "6.3": "8.1", "6.2": "8", "6.1": "7", "6.0": "Vista", "5.2": "XP", "5.1": "XP",
    ]

    static func operatingSystem(in tokens: UserAgentTokens) -> Software? {
        let parts = tokens.commentParts
        if let part = parts.first(where: { $0.hasPrefix("Windows Phone") }) {
            let rest = part.dropFirst("Windows Phone".count).trimmingSpaces()
            let number = rest.hasPrefix("OS ") ? rest.dropFirst(3) : Substring(rest)
            return Software(name: "Windows Phone", version: VersionText.numeric(number, components: 2))
        }
        if let apple = appleMobile(parts) { return apple }
        if let part = parts.first(where: { $0 == "Android" || $0.hasPrefix("Android ") }) {
            return Software(name: "Android", version: VersionText.numeric(part.dropFirst(7).trimmingSpaces(), components: 3))
        }
        if parts.contains(where: { $0.hasPrefix("CrOS ") || $0 == "CrOS" }) {
            return Software(name: "Chrome OS")
        }
        if let part = parts.first(where: { $0.hasPrefix("Windows") }) {
            let kernel = part.hasPrefix("Windows NT ") ? VersionText.numeric(part.dropFirst(11), components: 2) : nil
            return Software(name: "Windows", version: kernel.flatMap { windowsReleases[$0] })
        }
        if let part = parts.first(where: { $0.contains("Mac OS X") }) {
            let after = part.firstRange(of: "Mac OS X ").map { part[$0.upperBound...] } ?? ""
            return Software(name: "macOS", version: VersionText.numeric(after, components: 3))
        }
        if parts.contains("Macintosh") { return Software(name: "macOS") }
        if let part = parts.first(where: { $0.hasPrefix("Tizen") }) {
            return Software(name: "Tizen", version: VersionText.numeric(part.dropFirst(5).trimmingSpaces(), components: 2))
        }
        for bsd in ["FreeBSD", "OpenBSD", "NetBSD"] where parts.contains(where: { $0.contains(bsd) }) {
            return Software(name: bsd)
        }
        if parts.contains(where: { $0.lowercased() == "linux" || $0.lowercased().hasPrefix("linux ") || $0 == "Ubuntu" }) {
            return Software(name: "Linux")
        }
        return nil
    }

    /// iOS or iPadOS from "CPU iPhone OS 17_1 like Mac OS X" / "CPU OS 17_1 like Mac OS X".
    ///
    /// iPads report "iPadOS" from version 13, when Apple renamed the iPad's system; before that, "iOS".
    private static func appleMobile(_ parts: [String]) -> Software? {
        let isPad = parts.contains { $0 == "iPad" || $0.hasPrefix("iPad") }
        guard isPad || parts.contains(where: { $0.hasPrefix("iPhone") || $0.hasPrefix("iPod") }) else { return nil }
        var version: String?
        if let part = parts.first(where: { $0.hasPrefix("CPU ") && $0.contains("OS ") }),
            let range = part.firstRange(of: "OS ")
        {
            version = VersionText.numeric(part[range.upperBound...], components: 3)
        }
        let major = version.flatMap { Int($0.prefix { $0 != "." }) } ?? 0
        return Software(name: isPad && (version == nil || major >= 13) ? "iPadOS" : "iOS", version: version)
    }
}
