import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `server.appLinks` (docs/configuration.md, "server.yaml"): Android's Digital Asset Links
/// statement list — a JSON array — and Apple's apple-app-site-association — a JSON object — as
/// Google's and Apple's documentation show them, served unchanged at `/.well-known/`.
@Suite("HTTP: app links files")
struct AppLinksTests {
    /// developer.android.com, "Verify Android App Links": the statement list of one app.
    static let assetLinks = """
        [{
          "relation": ["delegate_permission/common.handle_all_urls"],
          "target": {
            "namespace": "android_app",
            "package_name": "com.example",
            "sha256_cert_fingerprints":
            ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]
          }
        }]
        """
    /// developer.apple.com, "Supporting associated domains": applinks with components, webcredentials, appclips.
    static let appleAssociation = """
        {
          "applinks": {
              "details": [
                   {
                     "appIDs": [ "ABCDE12345.com.example.app", "ABCDE12345.com.example.app2" ],
                     "components": [
                       { "#": "no_universal_links", "exclude": true, "comment": "Matches any URL with a fragment that equals no_universal_links and instructs the system not to open it as a universal link." },
                       { "/": "/buy/*", "comment": "Matches any URL with a path that starts with /buy/." },
                       { "/": "/help/website/*", "exclude": true, "comment": "Matches any URL with a path that starts with /help/website/ and instructs the system not to open it as a universal link." },
                       { "/": "/help/*", "?": { "articleNumber": "????" }, "comment": "Matches any URL with a path that starts with /help/ and that has a query item with name 'articleNumber' and a value of exactly four characters." }
                     ]
                   }
               ]
           },
           "webcredentials": {
              "apps": [ "ABCDE12345.com.example.app" ]
           },
           "appclips": {
               "apps": ["ABCED12345.com.example.MyApp.Clip"]
           }
        }
        """

    static func files(_ appLinks: String, extra: [String: String] = [:]) -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["server.yaml"] = "server:\n  issuer: http://127.0.0.1:8080\n  appLinks:\n\(appLinks)\n"
        return files.merging(extra) { $1 }
    }

    @Test("the files as Google and Apple publish them, by ${file:}: served byte for byte as application/json, cacheable, not redirected")
    func servedUnchanged() async throws {
        let files = Self.files("    android: ${file:links/assetlinks.json}\n    apple: ${file:links/apple-app-site-association}",
                               extra: ["links/assetlinks.json": Self.assetLinks + "\n", "links/apple-app-site-association": Self.appleAssociation])
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            for (path, document) in [("/.well-known/assetlinks.json", Self.assetLinks),
                                     ("/.well-known/apple-app-site-association", Self.appleAssociation)] {
                let answer = try await client.get(path)
                #expect(answer.status == .ok, "\(path)")
                #expect(answer.text == document, "\(path)")
                #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(answer.headers[.cacheControl] == "public, max-age=3600")
            }
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(try await client.get("/.well-known/assetlinks.json").text.utf8)) as? [[String: Any]])
            #expect((statements.first?["target"] as? [String: Any])?["package_name"] as? String == "com.example")
        }
    }

    @Test("the statement list as inline YAML: served as its JSON, still an array")
    func inlineYAML() async throws {
        let broker = try await TestBroker.make(files: Self.files("""
                android:
                  - relation: [ "delegate_permission/common.handle_all_urls" ]
                    target: { namespace: android_app, package_name: com.example, sha256_cert_fingerprints: [ "14:6D:E9" ] }
            """))
        try await broker.withClient { client in
            let answer = try await client.get("/.well-known/assetlinks.json")
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [[String: Any]])
            #expect(statements.count == 1 && statements[0]["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
            #expect(try await client.get("/.well-known/apple-app-site-association").status == .notFound)
        }
    }

    @Test("shapes that are not the published ones are problems naming server.appLinks.android / .apple")
    func wrongShapes() throws {
        func problems(_ appLinks: String) throws -> [String] {
            try ConfigLoaderTests.problems(["server.yaml": "server:\n  appLinks:\n\(appLinks)\n"]).map(\.description)
        }
        let object = try problems("    android: { relation: [ x ], target: { namespace: android_app } }")
        #expect(object.contains { $0.contains("server.appLinks.android") && $0.contains("a JSON array") && $0.contains("goes inside [ ]") },
                "\(object)")
        let noTarget = try problems("    android: '[{\"relation\": [\"delegate_permission/common.handle_all_urls\"]}]'")
        #expect(noTarget.contains { $0.contains("server.appLinks.android") && $0.contains("statement 0 needs 'target'") }, "\(noTarget)")
        let notJSON = try problems("    android: '[{'")
        #expect(notJSON.contains { $0.contains("server.appLinks.android") && $0.contains("is not JSON") }, "\(notJSON)")
        let appleList = try problems("    apple: [ { applinks: {} } ]")
        #expect(appleList.contains { $0.contains("server.appLinks.apple") && $0.contains("must be a JSON object") }, "\(appleList)")
    }
}
