import Foundation
import IdentityCore

extension BrokerConfigReader {
    /// The `server` section: issuer, address, TLS, trusted proxies, connection limits and rate limits.
    func readServer(_ reader: ConfigReader) -> ServerSettings {
        let trusted = (reader.strings("trustedProxies") ?? []).compactMap { text -> IPAddressRange? in
            guard let range = IPAddressRange(text) else {
                reader.problem("trustedProxies", "'\(text)' is not an IP address or CIDR block")
                return nil
            }
            return range
        }
        return ServerSettings(issuer: reader.url("issuer")?.absoluteString.trimmingTrailingSlash,
                              host: reader.string("host"),
                              port: reader.positiveInt("port"),
                              trustedProxies: trusted,
                              http: reader.section("http") { readHTTPLimits($0) } ?? HTTPLimits(),
                              rateLimits: reader.section("rateLimits") { readRateLimits($0) } ?? RateLimits(),
                              audit: reader.section("audit") { readAudit($0) } ?? AuditSettings(),
                              geoip: reader.section("geoip") { readGeoIP($0) } ?? nil,
                              appLinks: reader.section("appLinks") { readAppLinks($0) } ?? AppLinks(),
                              tls: reader.section("tls") { readTLS($0) } ?? nil,
                              admin: readAdminListener(reader))
    }

    /// `server.adminPort` and `server.adminHost`: the admin listener, when a port is given.
    private func readAdminListener(_ reader: ConfigReader) -> AdminListener? {
        let host = reader.string("adminHost")
        guard let port = reader.positiveInt("adminPort") else {
            if host != nil { reader.problem("adminHost", "needs server.adminPort") }
            return nil
        }
        if port > 65535 { reader.problem("adminPort", "must be between 1 and 65535") }
        if let host, host.isEmpty { reader.problem("adminHost", "must not be empty") }
        return AdminListener(host: host ?? AdminListener.defaultHost, port: port)
    }

    private func readAudit(_ reader: ConfigReader) -> AuditSettings {
        let defaults = AuditSettings()
        let file = reader.string("file")
        if let file, file.isEmpty { reader.problem("file", "must not be empty") }
        let settings = AuditSettings(file: file, maxBytes: reader.positiveInt("maxBytes") ?? defaults.maxBytes,
                                     keep: reader.positiveInt("keep") ?? defaults.keep)
        if settings.maxBytes < 4096 { reader.problem("maxBytes", "must be at least 4096") }
        if settings.keep > 100 { reader.problem("keep", "must be at most 100") }
        return settings
    }

    private func readHTTPLimits(_ reader: ConfigReader) -> HTTPLimits {
        let defaults = HTTPLimits()
        let limits = HTTPLimits(headTimeout: reader.positiveInt("headTimeout") ?? defaults.headTimeout,
                                idleTimeout: reader.positiveInt("idleTimeout") ?? defaults.idleTimeout,
                                maxHeadBytes: reader.positiveInt("maxHeadBytes") ?? defaults.maxHeadBytes)
        if limits.maxHeadBytes < 1024 || limits.maxHeadBytes > 1 << 20 {
            reader.problem("maxHeadBytes", "must be between 1024 and 1048576")
        }
        if limits.headTimeout > 300 { reader.problem("headTimeout", "must be at most 300 seconds") }
        return limits
    }

    private func readRateLimits(_ reader: ConfigReader) -> RateLimits {
        let defaults = RateLimits()
        return RateLimits(
            authorizationsPerMinute: reader.positiveInt("authorizationsPerMinute") ?? defaults.authorizationsPerMinute,
            registrationsPerMinute: reader.positiveInt("registrationsPerMinute") ?? defaults.registrationsPerMinute,
            registrationsPerTokenPerMinute: reader.positiveInt("registrationsPerTokenPerMinute") ?? defaults.registrationsPerTokenPerMinute,
            userCodesPerMinute: reader.positiveInt("userCodesPerMinute") ?? defaults.userCodesPerMinute)
    }
}
