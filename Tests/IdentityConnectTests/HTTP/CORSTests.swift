import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// CORS for browser apps (docs/protocol.md, "Browser apps (CORS)"; docs/security.md, "Browser apps (CORS)"):
/// discovery and the JWKS for any origin; token, userinfo, revocation and end-session readable by
/// the origins the request's client lists, preflights answered for origins some client lists,
/// nothing for any other origin. A real broker over loopback HTTP.
@Suite("HTTP: CORS for browser apps")
struct CORSTests {
    static let spa = "https://spa.example.com"
    /// Listed through `+`: the origin of the test redirect URI https://app.example.com/cb.
    static let viaRedirect = "https://app.example.com"
    /// Listed only by the `opaque` auth service, not by the default one.
    static let otherClients = "https://other.example.com"
    static let stranger = "https://evil.example.com"

    /// The test environment with `webOrigins` on two of its auth services.
    static func files() -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!
            .replacingOccurrences(of: "        tokenTtl: 600\n", with: "        tokenTtl: 600\n        webOrigins: [ \"\(spa)\", \"+\" ]\n")
            .replacingOccurrences(of: "        tokenFormat: opaque\n", with: "        tokenFormat: opaque\n        webOrigins: [ \"HTTPS://Other.Example.com:443\" ]\n")
        return files
    }

    static func from(_ origin: String, _ headers: HTTPFields = [:]) -> HTTPFields {
        var headers = headers
        headers[.origin] = origin
        return headers
    }

    static func preflight(_ origin: String, method: String, headers: String = "authorization, content-type") -> HTTPFields {
        [.origin: origin, .accessControlRequestMethod: method, .accessControlRequestHeaders: headers]
    }

    /// The answer carries `Vary: Origin`, and `Access-Control-Allow-Origin: <origin>` exactly when `readable`.
    static func expectCORS(_ response: TestResponse, _ origin: String, readable: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.headers[values: .vary].contains("Origin"), "Vary: Origin", sourceLocation: sourceLocation)
        #expect(response.headers[.accessControlAllowOrigin] == (readable ? origin : nil), "\(origin)", sourceLocation: sourceLocation)
        #expect(response.headers[.accessControlAllowCredentials] == nil, sourceLocation: sourceLocation)
    }

    @Test("discovery and the JWKS: any origin reads them (`*`, also answered below the router and on a 304); their preflight too")
    func publicDocuments() async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json"] {
                for uri in [path, path + "?via=router"] {
                    let answer = try await client.get(uri, headers: Self.from(Self.stranger))
                    #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == "*", "\(uri)")
                    let etag = try #require(answer.headers[.eTag])
                    let again = try await client.get(uri, headers: [.ifNoneMatch: etag])
                    #expect(again.status == .notModified && again.headers[.accessControlAllowOrigin] == "*", "\(uri)")
                }
                let preflight = try await client.execute(uri: path, method: .options, headers: Self.preflight(Self.stranger, method: "GET"))
                #expect(preflight.status == .noContent && preflight.headers[.accessControlAllowOrigin] == "*", "\(path)")
                #expect(preflight.headers[.accessControlAllowMethods] == "GET")
                let plain = try await client.execute(uri: path, method: .options)
                #expect(plain.status == .methodNotAllowed && plain.headers[.allow] == "GET", "\(path)")
            }
        }
    }

    @Test("token endpoint: the client's origins read its answers, errors included; a listed origin of another client and a stranger do not", arguments: ["", "/v3"])
    func tokenEndpoint(prefix: String) async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            let badCode = [("grant_type", "authorization_code"), ("code", "nope"), ("redirect_uri", TestBroker.redirect), ("client_id", TestBroker.appKey)]
            for origin in [Self.spa, Self.viaRedirect] {
                let refused = try await client.postForm("\(prefix)/oauth/token", badCode, headers: Self.from(origin))
                #expect(refused.status == .badRequest && refused.json["error"] as? String == "invalid_grant")
                Self.expectCORS(refused, origin, readable: true)
                #expect(refused.headers[.accessControlExposeHeaders]?.contains("WWW-Authenticate") == true)
            }
            for origin in [Self.otherClients, Self.stranger, "null"] {
                Self.expectCORS(try await client.postForm("\(prefix)/oauth/token", badCode, headers: Self.from(origin)), origin, readable: false)
            }
            // The other auth service's client id: its origin reads, the first one's does not.
            var opaque = badCode
            opaque[3] = ("client_id", "\(TestBroker.appKey).opaque")
            Self.expectCORS(try await client.postForm("\(prefix)/oauth/token", opaque, headers: Self.from(Self.otherClients)), Self.otherClients, readable: true)
            Self.expectCORS(try await client.postForm("\(prefix)/oauth/token", opaque, headers: Self.from(Self.spa)), Self.spa, readable: false)
            // A public client's code exchange with PKCE, as a browser app does it.
            let location = try await Flows.automatedLogin(client, extra: [("scope", "openid"), ("code_challenge", Flows.challenge),
                                                                          ("code_challenge_method", "S256")])
            let code = try #require(queryItems(location)["code"])
            let tokens = try await client.postForm("\(prefix)/oauth/token", [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
                ("client_id", TestBroker.appKey), ("code_verifier", Flows.verifier)], headers: Self.from(Self.spa))
            #expect(tokens.status == .ok && tokens.json["access_token"] is String)
            Self.expectCORS(tokens, Self.spa, readable: true)
            // Without Origin nothing changes.
            let plain = try await client.postForm("\(prefix)/oauth/token", badCode)
            #expect(plain.headers[.accessControlAllowOrigin] == nil && plain.headers[.vary] == nil)
        }
    }

    @Test("preflights: 204 with methods, headers and max-age for an origin some client lists; 405 without CORS headers otherwise")
    func preflights() async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            for (path, methods) in [("/oauth/token", "POST"), ("/v3/oauth/token", "POST"), ("/oauth/userinfo", "GET, POST"),
                                    ("/v1/oauth/revoke", "POST"), ("/oauth/logout", "GET, POST")] {
                let asked = methods.components(separatedBy: ", ").last!
                for origin in [Self.spa, Self.viaRedirect, Self.otherClients] {
                    let answer = try await client.execute(uri: path, method: .options, headers: Self.preflight(origin, method: asked))
                    #expect(answer.status == .noContent, "\(path) \(origin)")
                    Self.expectCORS(answer, origin, readable: true)
                    #expect(answer.headers[.accessControlAllowMethods] == methods)
                    #expect(answer.headers[.accessControlAllowHeaders] == "Authorization, Content-Type, DPoP")
                    #expect(answer.headers[.accessControlMaxAge] == "600")
                }
                for headers in [Self.preflight(Self.stranger, method: asked), Self.preflight(Self.spa, method: "DELETE"), [:]] {
                    let refused = try await client.execute(uri: path, method: .options, headers: headers)
                    #expect(refused.status == .methodNotAllowed && refused.headers[.allow] == methods, "\(path) \(headers)")
                    #expect(refused.headers[.accessControlAllowOrigin] == nil && refused.headers[.accessControlAllowMethods] == nil)
                }
            }
            // OPTIONS elsewhere is refused as any method a path does not serve, with no CORS.
            let elsewhere = try await client.execute(uri: "/oauth/introspect", method: .options, headers: Self.preflight(Self.spa, method: "POST"))
            #expect(elsewhere.status == .methodNotAllowed && elsewhere.headers[.allow] == "POST")
            #expect(elsewhere.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("userinfo: the token's client decides; an error answer is readable by a listed origin; revocation and end-session too")
    func userinfoRevocationLogout() async throws {
        let broker = try await TestBroker.make(files: Self.files())
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client, extra: [("scope", "openid email")])
            let tokens = try await Flows.exchange(client, code: try #require(queryItems(location)["code"])).json
            let access = try #require(tokens["access_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(access)"]
            let info = try await client.get("/oauth/userinfo", headers: Self.from(Self.spa, bearer))
            #expect(info.status == .ok && info.json["sub"] is String)
            Self.expectCORS(info, Self.spa, readable: true)
            Self.expectCORS(try await client.get("/v2/oauth/userinfo", headers: Self.from(Self.otherClients, bearer)), Self.otherClients, readable: false)
            let posted = try await client.postForm("/oauth/userinfo", [("access_token", access)], headers: Self.from(Self.viaRedirect))
            #expect(posted.status == .ok)
            Self.expectCORS(posted, Self.viaRedirect, readable: true)
            let badToken = try await client.get("/oauth/userinfo", headers: Self.from(Self.spa, [.authorization: "Bearer nope"]))
            #expect(badToken.status == .unauthorized)
            Self.expectCORS(badToken, Self.spa, readable: true)
            Self.expectCORS(try await client.get("/oauth/userinfo", headers: Self.from(Self.stranger, [.authorization: "Bearer nope"])),
                            Self.stranger, readable: false)

            let refresh = try #require(tokens["refresh_token"] as? String)
            let revoked = try await client.postForm("/oauth/revoke", [("token", refresh), ("client_id", TestBroker.appKey)],
                                                    headers: Self.from(Self.spa))
            #expect(revoked.status == .ok)
            Self.expectCORS(revoked, Self.spa, readable: true)
            Self.expectCORS(try await client.postForm("/oauth/revoke", [("token", refresh), ("client_id", TestBroker.appKey)],
                                                      headers: Self.from(Self.stranger)), Self.stranger, readable: false)
            let logout = try await client.get("/oauth/logout?client_id=\(TestBroker.appKey)", headers: Self.from(Self.spa))
            #expect(logout.status == .ok)
            Self.expectCORS(logout, Self.spa, readable: true)
            Self.expectCORS(try await client.get("/oauth/logout?client_id=\(TestBroker.appKey)", headers: Self.from(Self.otherClients)),
                            Self.otherClients, readable: false)
        }
    }
}
