/// A client id as MIC clients send it (SPEC §3, "Client identification"): an environment's App Key
/// alone, meaning its default auth service, or `appKey.authServiceId` naming one of them. Built and
/// read here only, so no code joins or splits the two parts by hand.
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    public let appKey: String
    /// The auth service it names; nil for the bare App Key (the environment's default).
    public let authServiceId: String?

    public init(appKey: String, authServiceId: String?) {
        self.appKey = appKey
        self.authServiceId = authServiceId
    }

    /// Splits at the first `.`: App Keys have none, auth service ids may. Nil for an empty text.
    public init?(parsing text: String) {
        guard !text.isEmpty else { return nil }
        // On the UTF-8 bytes: looking for the dot among Characters (grapheme breaking over the
        // whole id) costs a visible share of the requests that resolve a client.
        if let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) {
            appKey = String(text[..<dot])
            authServiceId = String(text[text.utf8.index(after: dot)...])
        } else {
            appKey = text
            authServiceId = nil
        }
    }

    /// `appKey` or `appKey.authServiceId`.
    public var description: String {
        guard let authServiceId else { return appKey }
        return appKey + "." + authServiceId
    }
}
