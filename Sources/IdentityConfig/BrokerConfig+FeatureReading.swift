import Foundation
import IdentityCore

extension BrokerConfigReader {
    /// `qrLogin: { enabled, ttl, qrUrl, scope }`; nil when absent or not enabled.
    func readQRLogin(_ reader: ConfigReader) -> QRLoginSettings? {
        let enabled = reader.bool("enabled") ?? false
        let ttl = reader.positiveInt("ttl") ?? QRLoginSettings.defaultTTL
        if ttl < 10 || ttl > 3600 { reader.problem("ttl", "must be between 10 and 3600 seconds") }
        let qrURL = reader.url("qrUrl")
        if let qrURL, qrURL.query != nil || qrURL.fragment != nil {
            reader.problem("qrUrl", "must have no query or fragment (the broker appends ?code=…)")
        }
        let scope = reader.string("scope") ?? QRLoginSettings.defaultScope
        if scope.isEmpty || !scope.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != "\\" }) {
            reader.problem("scope", "must be one scope token (no spaces, quotes or backslashes)")
        }
        return enabled ? QRLoginSettings(ttl: ttl, qrURL: qrURL, scope: scope) : nil
    }

    /// `deviceGrant: { enabled, lifetime, interval }` (docs/device-grant.md).
    func readDeviceGrant(_ reader: ConfigReader) -> DeviceGrantSettings? {
        let enabled = reader.bool("enabled") ?? false
        let lifetime = reader.positiveInt("lifetime") ?? DeviceGrantSettings.defaultLifetime
        if lifetime < 60 || lifetime > 3600 { reader.problem("lifetime", "must be between 60 and 3600 seconds") }
        let interval = reader.positiveInt("interval") ?? DeviceGrantSettings.defaultInterval
        if interval > 60 { reader.problem("interval", "must be between 1 and 60 seconds") }
        return enabled ? DeviceGrantSettings(lifetime: lifetime, interval: interval) : nil
    }

    /// `tokenExchange: { audiences, actors, dataLinks, upstreamTokens, upstreamAudiences }` (docs/token-exchange.md).
    func readTokenExchange(_ reader: ConfigReader) -> TokenExchangeSettings {
        let audiences = reader.strings("audiences") ?? []
        for audience in audiences where URL(string: audience)?.scheme == nil {
            reader.problem("audiences", "'\(audience)' is not an absolute URI (an apiResources audience)")
        }
        return TokenExchangeSettings(audiences: audiences, actors: reader.strings("actors") ?? [],
                                     dataLinks: reader.strings("dataLinks") ?? [], upstreamTokens: reader.bool("upstreamTokens") ?? false,
                                     upstreamAudiences: reader.strings("upstreamAudiences") ?? [])
    }

    /// `mfa: { mode, methods, issuerName }` (docs/mfa.md).
    func readMFA(_ reader: ConfigReader) -> MFASettings {
        var settings = MFASettings()
        if let mode = reader.string("mode") {
            if let parsed = MFASettings.Mode(rawValue: mode) {
                settings.mode = parsed
            } else {
                reader.problem("mode", "must be off, optional or required")
            }
        }
        if let methods = reader.strings("methods") {
            var parsed: Set<MFASettings.Method> = []
            for method in methods {
                if let known = MFASettings.Method(rawValue: method) {
                    parsed.insert(known)
                } else {
                    reader.problem("methods", "unknown method '\(method)' (known: totp, webauthn)")
                }
            }
            if methods.isEmpty { reader.problem("methods", "must name at least one method (totp, webauthn)") }
            if !parsed.isEmpty { settings.methods = parsed }
        }
        if let issuerName = reader.string("issuerName") {
            if issuerName.isEmpty || issuerName.contains(":") || issuerName.utf8.count > 64 {
                reader.problem("issuerName", "must be 1-64 characters without ':' (authenticator apps split labels at ':')")
            } else {
                settings.issuerName = issuerName
            }
        }
        return settings
    }

    /// `server.geoip: { database }`: a MaxMind-format (GeoIP2 / GeoLite2 City) database file.
    func readGeoIP(_ reader: ConfigReader) -> GeoIPSettings? {
        guard let path = reader.string("database", required: true) else { return nil }
        if path.isEmpty { reader.problem("database", "must not be empty") }
        return GeoIPSettings(database: path)
    }

    /// `apiResources: [{scope, audience}]` of an environment or organization.
    func readAPIResources(_ reader: ConfigReader) -> [APIResource] {
        var seen: Set<String> = []
        return reader.list("apiResources") { item -> APIResource? in
            guard let scope = item.string("scope", required: true), let audience = item.string("audience", required: true) else {
                return nil
            }
            if scope.isEmpty || !scope.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != "\\" }) {
                item.problem("scope", "must be one scope token (no spaces, quotes or backslashes)")
            } else if !seen.insert(scope).inserted {
                item.problem("scope", "'\(scope)' is declared twice")
            }
            if ConfigReader.absoluteURL(audience, schemes: []) == nil || ConfigReader.hasFragment(audience) {
                item.problem("audience", "must be an absolute URI without a fragment")
            }
            return APIResource(scope: scope, audience: audience)
        } ?? []
    }

    /// `server.appLinks: {apple, android}`, each inline YAML or a JSON text (`${file:...}`):
    /// Apple's file a JSON object, Android's the Digital Asset Links statement list — a JSON array,
    /// as Google's documentation publishes it. A JSON text is served byte for byte; inline YAML as
    /// its compact JSON.
    func readAppLinks(_ reader: ConfigReader) -> AppLinks {
        func document(_ key: String, _ problem: (JSONValue) -> String?) -> [UInt8]? {
            guard let node = reader.raw(key) else { return nil }
            let value: JSONValue
            let bytes: [UInt8]
            if let text = node.scalar {
                guard let parsed = JSONValue(parsing: Data(text.utf8)) else {
                    reader.problem(key, "is not JSON (give inline YAML, or a JSON text such as ${file:\(key == "apple" ? "apple-app-site-association" : "assetlinks.json")})")
                    return nil
                }
                (value, bytes) = (parsed, Array(text.utf8))
            } else {
                (value, bytes) = (node.jsonValue, node.jsonValue.serialized)
            }
            if let reason = problem(value) {
                reader.problem(key, reason)
                return nil
            }
            return bytes
        }
        return AppLinks(apple: document("apple", Self.appleAppSiteAssociationProblem),
                        android: document("android", Self.assetLinksProblem))
    }

    /// Apple's apple-app-site-association is one JSON object (`applinks`, `webcredentials`, …).
    static func appleAppSiteAssociationProblem(_ value: JSONValue) -> String? {
        guard case .object = value else { return "must be a JSON object ({\"applinks\": {...}}), as Apple documents it" }
        return nil
    }

    /// Android's assetlinks.json is a list of statements, each with `relation` (a non-empty list of
    /// strings such as `delegate_permission/common.handle_all_urls`) and a `target` object.
    static func assetLinksProblem(_ value: JSONValue) -> String? {
        guard case .array(let statements) = value else {
            return "must be the Digital Asset Links statement list, a JSON array ([{\"relation\": [...], \"target\": {...}}]) "
                + "as Google publishes it; a single statement goes inside [ ]"
        }
        if statements.isEmpty { return "must list at least one statement" }
        for (index, statement) in statements.enumerated() {
            guard case .object(let fields) = statement else { return "statement \(index) is not a JSON object" }
            guard case .array(let relations)? = fields["relation"], !relations.isEmpty,
                  relations.allSatisfy({ $0.stringValue != nil }) else {
                return "statement \(index) needs 'relation', a list of strings such as delegate_permission/common.handle_all_urls"
            }
            guard case .object? = fields["target"] else {
                return "statement \(index) needs 'target', an object such as {\"namespace\": \"android_app\", \"package_name\": ..., \"sha256_cert_fingerprints\": [...]}"
            }
        }
        return nil
    }

    /// `webOrigins` of an auth service: exact origins (`scheme://host[:port]`) and `+`, the origins
    /// of `redirectURIs`; returned expanded and normalized (docs/configuration.md, "Auth services").
    func readWebOrigins(_ reader: ConfigReader, redirectURIs: [String]) -> [String] {
        guard let entries = reader.strings("webOrigins") else { return [] }
        for entry in entries where entry != WebOrigins.ofRedirectURIs {
            if case .failure(let problem) = WebOrigins.normalized(entry) { reader.problem("webOrigins", problem.reason) }
        }
        if entries.contains(WebOrigins.ofRedirectURIs), !redirectURIs.isEmpty,
           redirectURIs.allSatisfy({ WebOrigins.origin(ofRedirectURI: $0) == nil }) {
            reader.problem("webOrigins", "'+' stands for the origins of the http(s) redirect URIs, and redirectUri has none")
        }
        return WebOrigins.expand(entries, redirectURIs: redirectURIs)
    }

    /// `backchannelLogoutUri` of an auth service: an https URL without a fragment (OpenID Connect
    /// Back-Channel Logout 1.0, section 2.2), or http to this machine (127.0.0.1, ::1, localhost)
    /// for a relying party beside the broker.
    func readBackchannelLogoutURI(_ reader: ConfigReader) -> URL? {
        guard let url = reader.url("backchannelLogoutUri") else { return nil }
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(url.host?.lowercased() ?? "")
        if url.scheme?.lowercased() == "http" && !loopback {
            reader.problem("backchannelLogoutUri", "must be an https URL (http only to 127.0.0.1, ::1 or localhost)")
            return nil
        }
        if ConfigReader.hasFragment(url.absoluteString) {
            reader.problem("backchannelLogoutUri", "must not have a fragment")
            return nil
        }
        return url
    }
}
