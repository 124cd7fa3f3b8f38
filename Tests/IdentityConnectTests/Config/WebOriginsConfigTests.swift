import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `webOrigins` of an auth service (docs/configuration.md, "Auth services"): exact origins and `+`,
/// every mistake reported with file, key path and reason; and the origin reading they share with
/// registration (`WebOrigins`).
@Suite("Configuration: webOrigins")
struct WebOriginsConfigTests {
    @Test("exact origins are normalized as browsers send them; + adds the origins of the http(s) redirect URIs")
    func expanded() throws {
        let directory = try ConfigLoaderTests.directory(["env.yaml": """
            environments:
              - appKey: kid_w
                authServices:
                  - id: s1
                    redirectUri: [ "https://app.example.com/cb", "http://127.0.0.1:5173/cb?x=1", "com.example:/cb", "https://user@app.example.com:443/other" ]
                    webOrigins: [ "HTTPS://SPA.example.com:443", "http://[::1]:8080", "capacitor://localhost", "+" ]
                    provider:
                      type: static
                      options: { users: [] }
            """])
        let (_, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
        let client = try #require(clients.resolve("kid_w"))
        #expect(client.webOrigins == ["https://spa.example.com", "http://[::1]:8080", "capacitor://localhost",
                                      "https://app.example.com", "http://127.0.0.1:5173"])
        #expect(clients.webOrigins.contains("http://127.0.0.1:5173"))
    }

    @Test("wildcards, paths, null, non-origins and a + without http(s) redirect URIs are problems naming the key path")
    func problems() throws {
        let problems = try ConfigLoaderTests.problems(["env.yaml": """
            environments:
              - appKey: kid_w
                authServices:
                  - id: s1
                    redirectUri: [ "com.example:/cb" ]
                    webOrigins: [ "https://*.example.com", "https://app.example.com/", "null", "app.example.com", "https://app.example.com:99999", "+" ]
                    provider:
                      type: static
                      options: { users: [] }
                  - id: s2
                    redirectUri: [ "https://ok.example.com/cb" ]
                    webOrigins: { origin: "https://one.example.com" }
                    provider:
                      type: static
                      options: { users: [] }
            """]).map(\.description)
        func has(_ path: String, _ reason: String) -> Bool { problems.contains { $0.contains(path) && $0.contains(reason) } }
        let key = "env.yaml:6: environments[0].authServices[0].webOrigins"
        #expect(has(key, "wildcards are not supported; list each origin exactly"), "\(problems)")
        #expect(has(key, "'https://app.example.com/' must be only scheme://host[:port], with no path (not even '/')"))
        #expect(has(key, "'null' is the origin of sandboxed pages and files"))
        #expect(has(key, "'app.example.com' is not an origin"))
        #expect(has(key, "'https://app.example.com:99999' has no valid host"))
        #expect(has(key, "'+' stands for the origins of the http(s) redirect URIs, and redirectUri has none"))
        #expect(has("authServices[1].webOrigins", "must be a list of strings"))
    }

    @Test("the origin reading: normalized form, the origin of a redirect URI, expansion without repeats")
    func reading() throws {
        #expect(try WebOrigins.normalized("HTTP://Example.COM:80").get() == "http://example.com")
        #expect(try WebOrigins.normalized("https://example.com:8443").get() == "https://example.com:8443")
        #expect(try WebOrigins.normalized("http://[::1]:80").get() == "http://[::1]")
        for bad in ["https://example.com/", "https://example.com?x", "https://example.com#f", "https://u@example.com",
                    "https://exa mple.com", "https://ex%41mple.com", "https://", "https://example.com:", "https://example.com:0",
                    "*", "https://*", "://example.com", "1http://example.com", "null", ""] {
            #expect((try? WebOrigins.normalized(bad).get()) == nil, "\(bad)")
        }
        #expect(WebOrigins.origin(ofRedirectURI: "https://App.example.com:443/cb?x#y") == "https://app.example.com")
        #expect(WebOrigins.origin(ofRedirectURI: "com.example.app:/oauth2redirect") == nil)
        #expect(WebOrigins.expand(["+", "https://app.example.com", "+"], redirectURIs: ["https://app.example.com/a", "https://b.example.com/b"])
                == ["https://app.example.com", "https://b.example.com"])
    }
}
