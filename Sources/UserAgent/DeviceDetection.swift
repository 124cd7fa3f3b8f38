/// Works out the device type, the device model token and a human-readable device name.
///
/// Conventions (Blitz's documentation does not define these; see the package README notes):
/// `device` is the short model token the User-Agent gives ("iPhone", "Pixel 7", "SM-G991B", "Mac",
/// "PC"); `deviceName` is that model as a person would say it, with the maker in front when it is
/// known ("Apple iPhone", "Google Pixel 7", "Samsung SM-G991B"). Both are nil when the User-Agent
/// does not say — nothing is guessed from screen sizes or version numbers.
enum DeviceDetection {
    struct Result: Equatable {
        var type: DeviceType
        var device: String?
        var name: String?
    }

    static func device(in tokens: UserAgentTokens, os: Software?) -> Result {
        let parts = tokens.commentParts
        if let console = playStation(parts) {
            return Result(type: .playStation, device: console, name: "Sony \(console)")
        }
        if let xbox = parts.first(where: { $0.hasPrefix("Xbox") }) {
            let model = parts.last(where: { $0.hasPrefix("Xbox") }) ?? xbox
            return Result(type: .unknown, device: VersionText.model(model), name: VersionText.model(model).map { "Microsoft \($0)" })
        }
        if tokens.mentions("SmartTV") || tokens.mentions("SMART-TV") || tokens.mentions("Web0S") || parts.contains("TV") {
            return Result(type: .unknown)
        }
        let model = AndroidModel.model(in: parts)
        if tokens.product("Silk") != nil || tokens.product("Kindle") != nil || model.map(AndroidModel.isKindleFire) == true {
            if let model, AndroidModel.isKindleFire(model) {
                return Result(type: .kindle, device: model, name: "Amazon Kindle Fire")
            }
            return Result(type: .kindle, device: "Kindle", name: "Amazon Kindle")
        }
        switch os?.name {
        case "Windows Phone":
            let phone = windowsPhoneModel(parts)
            return Result(type: .windowsPhone, device: phone?.model, name: phone.map { "\($0.maker) \($0.model)" })
        case "iOS", "iPadOS":
            if parts.contains(where: { $0.hasPrefix("iPad") }) {
                return Result(type: .ipad, device: "iPad", name: "Apple iPad")
            }
            if parts.contains(where: { $0.hasPrefix("iPod") }) {
                return Result(type: .mobile, device: "iPod touch", name: "Apple iPod touch")
            }
            return Result(type: .iphone, device: "iPhone", name: "Apple iPhone")
        case "Android":
            let type: DeviceType
            if tokens.hintsMobile {
                type = .mobile
            } else if parts.contains("Tablet") || tokens.isBrowserLike {
                type = .tablet  // Android browsers leave out "Mobile" on tablets
            } else {
                type = .unknown  // an app's HTTP stack (Dalvik, okhttp) says nothing about the form factor
            }
            return Result(type: type, device: model, name: model.map(AndroidModel.displayName))
        case "macOS":
            return Result(type: .pc, device: "Mac", name: "Apple Mac")
        case "Chrome OS":
            return Result(type: .pc, device: "Chromebook", name: "Chromebook")
        case "Windows", "Linux", "FreeBSD", "OpenBSD", "NetBSD":
            if tokens.hintsMobile { return Result(type: .mobile) }  // Firefox OS, Ubuntu Touch, Sailfish
            return Result(type: .pc, device: "PC", name: "PC")
        default:
            return Result(type: tokens.hintsMobile && tokens.isBrowserLike ? .mobile : .unknown)
        }
    }

    /// "PlayStation 4", "PlayStation 5", "PlayStation Vita", "PlayStation Portable" from
    /// "PlayStation 4 5.55", "PlayStation 5/2.26", "PLAYSTATION 3 4.81".
    private static func playStation(_ parts: [String]) -> String? {
        var found: String?
        for part in parts where part.lowercased().hasPrefix("playstation") {
            let rest = part.dropFirst("playstation".count).trimmingSpaces()
            let word = rest.prefix { $0 != " " && $0 != "/" }
            if let digit = word.first, digit.isNumber, word.count == 1 {
                return "PlayStation \(word)"
            }
            if word == "Vita" || word == "Portable" { return "PlayStation \(word)" }
            found = "PlayStation"
        }
        return found
    }

    /// The maker and model from "…; NOKIA; Lumia 920" or "…; Microsoft; Lumia 950".
    private static func windowsPhoneModel(_ parts: [String]) -> (maker: String, model: String)? {
        let makers = ["nokia": "Nokia", "microsoft": "Microsoft", "htc": "HTC", "samsung": "Samsung", "lg": "LG"]
        for (index, part) in parts.enumerated() {
            guard let maker = makers[part.lowercased()], index + 1 < parts.count,
                let model = VersionText.model(parts[index + 1])
            else { continue }
            return (maker, model)
        }
        return nil
    }
}
