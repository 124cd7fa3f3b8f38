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

    /// `server.geoip: { database }`: a MaxMind-format (GeoIP2 / GeoLite2 City) database file.
    func readGeoIP(_ reader: ConfigReader) -> GeoIPSettings? {
        guard let path = reader.string("database", required: true) else { return nil }
        if path.isEmpty { reader.problem("database", "must not be empty") }
        return GeoIPSettings(database: path)
    }
}
