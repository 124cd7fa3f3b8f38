import Foundation
import GeoIP
import Hummingbird
import HummingbirdTesting
import IdentityApp
import IdentityCore
import Testing

/// `server.geoip` (a MaxMind-format database, docs/qr-login.md): where the browser showing a QR
/// code is, in the app's language. The test database comes from scripts/peers/geoip-test-db.py.
/// The test database's path, when scripts/test.sh wrote one.
let geoIPTestDatabase = ProcessInfo.processInfo.environment["IDCONNECT_GEOIP_TEST_DB"]

@Suite("QR-code login: GeoIP", .enabled(if: geoIPTestDatabase != nil, "IDCONNECT_GEOIP_TEST_DB is not set (scripts/test.sh writes one)"))
struct GeoIPTests {
    static var database: String? { geoIPTestDatabase }

    @Test("lookups in IPv4 and IPv6, names in the preferred language, English otherwise; unknown addresses locate nowhere")
    func lookups() throws {
        let locator = try MaxMindLocator(path: try #require(Self.database))
        let london = try #require(locator.locate("81.2.69.160", languages: ["fr", "de-CH"]))
        #expect(london == GeoLocation(country: "Vereinigtes Königreich", state: "England", city: "London",
                                      latitude: 51.5142, longitude: -0.0931, radius: 10))
        #expect(locator.locate("81.2.69.1", languages: [])?.country == "United Kingdom")
        #expect(locator.locate("2001:db8:51::7", languages: ["de"])?.city == "München")
        #expect(locator.locate("2001:db8:51::7", languages: ["ja"])?.city == "Munich")
        for nowhere in ["127.0.0.1", "192.0.2.1", "::1", "not an address", ""] {
            #expect(locator.locate(nowhere, languages: ["en"]) == nil, "\(nowhere)")
        }
        #expect(throws: GeoIPError.self) { try MaxMindLocator(path: "/nonexistent/city.mmdb") }
        #expect(throws: GeoIPError.self) { try MaxMindLocator(path: #filePath) }
    }

    @Test("the QR info carries ip_* fields for a located browser (behind a trusted proxy), in the app's language")
    func info() async throws {
        var files = QRFlows.files()
        files["server.yaml"] = """
            server:
              issuer: http://127.0.0.1:8080
              trustedProxies: [ 127.0.0.1/32 ]
              geoip: { database: \(try #require(Self.database)) }
            """
        let broker = try await TestBroker.make(files: files)
        // The trusted proxy is the peer address of a real connection.
        try await broker.withClient(network: true) { client in
            let browser = try await QRFlows.show(client, forwardedFor: "81.2.69.160")
            let token = try await QRFlows.appToken(client)
            var headers: HTTPFields = [.authorization: "Bearer \(token)", .acceptLanguage: "de-DE, en;q=0.5"]
            var info = try await client.get("/api/v3/auth/qr/\(browser.code)", headers: headers).json
            #expect(info["ip"] as? String == "81.2.69.160")
            #expect(info["ip_country"] as? String == "Vereinigtes Königreich")
            #expect(info["ip_state"] as? String == "England")
            #expect(info["ip_city"] as? String == "London")
            #expect(info["ip_lat"] as? Double == 51.5142)
            #expect(info["ip_lng"] as? Double == -0.0931)
            #expect(info["ip_radius"] as? Int == 10)
            headers[.acceptLanguage] = nil
            info = try await client.get("/api/v3/auth/qr/\(browser.code)", headers: headers).json
            #expect(info["ip_country"] as? String == "United Kingdom")
        }
    }

    @Test("a database that cannot be opened refuses the start before storage is touched")
    func badDatabase() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("idc-geoip-\(UUID().uuidString)")
        await #expect(throws: BootstrapError.self) {
            _ = try await RefusedConfigTests.prepare(
                ["x.yaml": "server:\n  geoip: { database: /nonexistent/city.mmdb }\n" + RefusedConfigTests.environment()],
                storage: "sqlite:\(root.path)/data/db.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: root.path + "/data"))
    }
}
