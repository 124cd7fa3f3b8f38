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

    /// `server.appLinks: {apple, android}`: each a JSON document, inline or as a JSON string
    /// (`${file:...}`).
    func readAppLinks(_ reader: ConfigReader) -> AppLinks {
        func document(_ key: String) -> JSONValue? {
            guard let node = reader.raw(key) else { return nil }
            if let text = node.scalar {
                guard let parsed = JSONValue(parsing: Data(text.utf8)), case .object = parsed else {
                    reader.problem(key, "must be a JSON object (inline YAML or a JSON string)")
                    return nil
                }
                return parsed
            }
            guard case .object = node.jsonValue else {
                reader.problem(key, "must be a JSON object")
                return nil
            }
            return node.jsonValue
        }
        return AppLinks(apple: document("apple"), android: document("android"))
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
}
