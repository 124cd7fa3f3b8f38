import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

@Suite("Discovery and JWKS")
struct DiscoveryTests {
    @Test("openid-configuration and oauth-authorization-server agree and every advertised endpoint answers")
    func discovery() async throws {
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let oidc = try await client.get("/.well-known/openid-configuration")
            let oauth = try await client.get("/.well-known/oauth-authorization-server")
            #expect(oidc.status == .ok)
            #expect(oidc.text == oauth.text)
            let document = oidc.json
            #expect(document["issuer"] as? String == "http://127.0.0.1:8080")
            #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            for (key, value) in document where key.hasSuffix("_endpoint") || key == "jwks_uri" {
                let url = try #require(value as? String)
                #expect(url.hasPrefix("http://127.0.0.1:8080/"))
                let get = try await client.get(pathOf(url))
                let post = try await client.postForm(pathOf(url), [])
                // Each endpoint answers one of the methods and refuses the other with 405, never 404 or 5xx.
                #expect(get.status != .notFound && post.status != .notFound, "\(key)")
                #expect(get.status.code < 500 && post.status.code < 500, "\(key)")
                #expect(get.status != .methodNotAllowed || post.status != .methodNotAllowed, "\(key)")
            }
            let grants = try #require(document["grant_types_supported"] as? [String])
            for grant in grants {
                let response = try await client.postForm("/oauth/token", [("grant_type", grant)], headers: basicAuth(TestBroker.appKey, TestBroker.appSecret))
                #expect(response.json["error"] as? String != "unsupported_grant_type", "\(grant)")
            }
        }
    }

    @Test("ES256 signing: the JWKS publishes a P-256 key that verifies issued tokens")
    func es256() async throws {
        let broker = try await TestBroker.make(files: TestBroker.defaultConfig(signing: "ES256"))
        try await broker.withClient { client in
            let jwks = try await client.get("/.well-known/jwks.json")
            #expect(jwks.text.contains(#""crv":"P-256""#))
            let tokens = try await Flows.tokens(client)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.text)
            let claims = try await keys.verify(try #require(tokens["access_token"] as? String), as: AccessClaims.self)
            #expect(claims.client_id == TestBroker.appKey)
            let header = try #require((tokens["access_token"] as? String)?.split(separator: ".").first)
            let decoded = String(decoding: Data(base64URL: header)!, as: UTF8.self)
            #expect(decoded.contains(#""typ":"at+jwt""#) && decoded.contains(#""alg":"ES256""#))
        }
    }
}
