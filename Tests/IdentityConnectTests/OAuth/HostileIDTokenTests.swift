import Crypto
import CryptoExtras
import Foundation
import HummingbirdTesting
import IdentityCore
import JOSE
import Testing

/// id_tokens the tests mint and serve from a fake provider: the honest ones sign in, every
/// hostile one is refused with no code for the app
/// (docs/connectors/oauth2-oidc.md, "The browser sign-in").
@Suite("openid-connect: id_token verification against a fake provider")
struct HostileIDTokenTests {
    @Test("honest id_tokens sign in: RS256, PS256, ES256, a kid-less RS256; userinfo is merged")
    func honest() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let minters: [(String, (String) -> String)] = [
                    ("RS256", { Mint.rs256(Mint.claims(issuer: base, nonce: $0, now: now)) }),
                    ("PS256", { Mint.ps256(Mint.claims(issuer: base, nonce: $0, now: now)) }),
                    ("ES256", { Mint.es256(Mint.claims(issuer: base, nonce: $0, now: now)) }),
                    ("no kid", { Mint.rs256(Mint.claims(issuer: base, nonce: $0, now: now), kid: nil) }),
                    ("aud list with azp", { Mint.rs256(Mint.claims(issuer: base, nonce: $0, now: now, ["aud": ["broker", "other"], "azp": "broker"])) }),
                ]
                for (name, mint) in minters {
                    let location = try await FakeProviderFixture.signIn(client, provider: provider, idToken: mint)
                    let code = try #require(queryItems(location)["code"], "\(name): \(location)")
                    let tokens = try await OAuthPeerFixture.exchange(client, code: code, authService: "fake")
                    let validated = try await OAuthPeerFixture.validate(client, try #require(tokens.json["access_token"] as? String))
                    #expect(validated.json["id"] as? String == "fake-user", "\(name)")
                    #expect(validated.json["name"] as? String == "Fake User", "\(name): userinfo merged")
                }
            }
        }
    }

    @Test("hostile id_tokens are refused: server_error to the app, never a code")
    func hostile() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                let now = broker.clock.now()
                let publicPEM = Data(UpstreamTestKeys.rsa.publicKey.pemRepresentation.utf8)
                let modulus = try UpstreamTestKeys.rsa.publicKey.getKeyPrimitives().modulus
                func claims(_ nonce: String, _ overrides: [String: Any] = [:]) -> [String: Any] {
                    Mint.claims(issuer: base, nonce: nonce, now: now, overrides)
                }
                let cases: [(String, (String) -> String?)] = [
                    ("alg none", { Mint.token(header: ["alg": "none"], claims: claims($0)) { _ in Data() } }),
                    ("alg none with a signature", { Mint.token(header: ["alg": "none", "kid": "k1"], claims: claims($0)) { _ in Data([1, 2, 3]) } }),
                    ("HS256 keyed with the public key PEM", { nonce in
                        Mint.token(header: ["alg": "HS256", "kid": "k1"], claims: claims(nonce)) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: publicPEM))) }
                    }),
                    ("HS256 keyed with the modulus", { nonce in
                        Mint.token(header: ["alg": "HS256"], claims: claims(nonce)) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: modulus))) }
                    }),
                    ("RS256 header on an ES256 key id", { Mint.token(header: ["alg": "RS256", "kid": "e1"], claims: claims($0)) { try! UpstreamTestKeys.p256.signature(for: $0).rawRepresentation } }),
                    ("signed by another key under a known kid", { Mint.rs256(claims($0), key: UpstreamTestKeys.rotated, kid: "k1") }),
                    ("tampered payload", { nonce in
                        let honest = Mint.rs256(claims(nonce)).split(separator: ".")
                        let forged = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims(nonce, ["sub": "admin"])))
                        return "\(honest[0]).\(forged).\(honest[2])"
                    }),
                    ("wrong iss", { Mint.rs256(claims($0, ["iss": "https://evil.example.com"])) }),
                    ("wrong aud", { Mint.rs256(claims($0, ["aud": "someone-else"])) }),
                    ("several aud, no azp", { Mint.rs256(claims($0, ["aud": ["broker", "other"]])) }),
                    ("azp of another client", { Mint.rs256(claims($0, ["azp": "other"])) }),
                    ("wrong nonce", { _ in Mint.rs256(claims("not-the-nonce")) }),
                    ("no nonce", { _ in Mint.rs256(Mint.claims(issuer: base, nonce: nil, now: now)) }),
                    ("expired", { Mint.rs256(claims($0, ["exp": Int(now.timeIntervalSince1970) - 120])) }),
                    ("issued in the future", { Mint.rs256(claims($0, ["iat": Int(now.timeIntervalSince1970) + 600])) }),
                    ("no exp", { nonce in var c = claims(nonce); c["exp"] = nil; return Mint.rs256(c) }),
                    ("unknown kid", { Mint.rs256(claims($0), key: UpstreamTestKeys.rotated, kid: "k-unknown") }),
                    ("critical header", { nonce in
                        Mint.token(header: ["alg": "RS256", "kid": "k1", "crit": ["exp"]], claims: claims(nonce)) {
                            try! UpstreamTestKeys.rsa.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation
                        }
                    }),
                    ("not a JWS", { _ in "not.a-token" }),
                    ("no id_token at all", { _ in nil }),
                ]
                for (name, mint) in cases {
                    let location = try await FakeProviderFixture.signIn(client, provider: provider, idToken: mint)
                    #expect(location.hasPrefix(TestBroker.redirect + "?"), "\(name)")
                    #expect(queryItems(location)["error"] == "server_error", "\(name): \(location)")
                    #expect(queryItems(location)["code"] == nil, "\(name)")
                }
            }
        }
    }

    @Test("a new kid after key rotation fetches the JWKS again; forged kids cannot force fetches faster than once per 30 s, even while the JWKS fails; cached keys outlive a JWKS outage")
    func keyRotation() async throws {
        let provider = FakeOpenIDProvider()
        try await TestHTTPServer.with(provider.router()) { base in
            let broker = try await TestBroker.make(files: FakeProviderFixture.files(base: base), registry: OAuthPeerFixture.registry)
            try await broker.withClient { client in
                func signIn(_ key: _RSA.Signing.PrivateKey, kid: String) async throws -> String {
                    try await FakeProviderFixture.signIn(client, provider: provider) {
                        Mint.rs256(Mint.claims(issuer: base, nonce: $0, now: broker.clock.now()), key: key, kid: kid)
                    }
                }
                #expect(queryItems(try await signIn(UpstreamTestKeys.rsa, kid: "k1"))["code"] != nil)
                #expect(queryItems(try await signIn(UpstreamTestKeys.rsa, kid: "k1"))["code"] != nil)
                #expect(provider.log.count(path: "/jwks") == 1)

                provider.update { $0.jwks = [UpstreamTestKeys.jwk(UpstreamTestKeys.rotated, kid: "k2")] }
                broker.clock.advance(31)
                #expect(queryItems(try await signIn(UpstreamTestKeys.rotated, kid: "k2"))["code"] != nil)
                #expect(provider.log.count(path: "/jwks") == 2)

                for _ in 0..<3 {
                    let forged = try await signIn(UpstreamTestKeys.rotated, kid: "forged")
                    #expect(queryItems(forged)["error"] == "server_error")
                }
                #expect(provider.log.count(path: "/jwks") == 2)
                broker.clock.advance(31)
                let later = try await signIn(UpstreamTestKeys.rotated, kid: "forged")
                #expect(queryItems(later)["error"] == "server_error")
                #expect(provider.log.count(path: "/jwks") == 3)
                // Discovery was read once for all of this.
                #expect(provider.log.count(path: "/.well-known/openid-configuration") == 1)

                // The JWKS endpoint goes down: the cached keys, over an hour old, still sign in k2 tokens,
                // and failed fetches count against the rate limit just as successful ones.
                provider.update { $0.jwksDown = true }
                broker.clock.advance(3_700)
                #expect(queryItems(try await signIn(UpstreamTestKeys.rotated, kid: "k2"))["code"] != nil)
                #expect(provider.log.count(path: "/jwks") == 4)
                for _ in 0..<3 {
                    #expect(queryItems(try await signIn(UpstreamTestKeys.rotated, kid: "forged"))["code"] == nil)
                }
                #expect(provider.log.count(path: "/jwks") == 4)
            }
        }
    }
}
