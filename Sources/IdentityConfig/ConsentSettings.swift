import Foundation
import IdentityCore

/// `consent` of an auth service (docs/consent.md): its apps are shown to the user, who decides
/// what they may do, before they get a code.
public struct ConsentSettings: Sendable, Equatable {
    public enum Mode: String, Sendable {
        /// Asked at every authorization (a third-party app the operator wants confirmed each time).
        case required
        /// Asked once per set of scopes: an authorization asking only for what was granted before
        /// goes through without the screen.
        case remembered
    }

    public var mode: Mode
    /// Shown on the consent screen beside the app's name.
    public var logoURI: URL?
    /// The app's home page.
    public var clientURI: URL?
    /// The app's privacy policy and terms of service.
    public var policyURI: URL?
    public var tosURI: URL?
    /// Scope → what it lets the app do, in words, beside (or instead of) the built-in wording.
    public var scopeDescriptions: [String: String]

    public init(mode: Mode, logoURI: URL? = nil, clientURI: URL? = nil, policyURI: URL? = nil, tosURI: URL? = nil,
                scopeDescriptions: [String: String] = [:]) {
        self.mode = mode
        self.logoURI = logoURI
        self.clientURI = clientURI
        self.policyURI = policyURI
        self.tosURI = tosURI
        self.scopeDescriptions = scopeDescriptions
    }
}

extension BrokerConfigReader {
    /// `consent` of an auth service: `mode` (`required` or `remembered`), the app's `logoUri`,
    /// `clientUri`, `policyUri` and `tosUri` (https, or http to this machine), and `scopes`, a map
    /// of scope to description.
    func readConsent(_ reader: ConfigReader) -> ConsentSettings? {
        let text = reader.string("mode", required: true)
        let mode = text.flatMap(ConsentSettings.Mode.init(rawValue:))
        if let text, mode == nil { reader.problem("mode", "must be required or remembered (found '\(text)')") }
        var descriptions = reader.stringMap("scopes") ?? [:]
        for (scope, words) in descriptions where words.isEmpty || words.utf8.count > 200 || scope.contains(" ") {
            reader.problem("scopes", "'\(scope)' needs a description of 1 to 200 bytes (and a scope has no spaces)")
            descriptions[scope] = nil
        }
        let logo = webLink(reader, "logoUri"), home = webLink(reader, "clientUri"), policy = webLink(reader, "policyUri")
        let terms = webLink(reader, "tosUri")
        guard let mode else { return nil }
        return ConsentSettings(mode: mode, logoURI: logo, clientURI: home, policyURI: policy, tosURI: terms, scopeDescriptions: descriptions)
    }
}
