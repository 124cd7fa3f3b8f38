import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import JOSE
@testable import OAuthEngine
import Synchronization
import Testing

/// JWT client authentication (RFC 7523, docs/client-authentication.md): `private_key_jwt` with
/// configured or published keys, `client_secret_jwt`, each the only way in for its environment,
/// and every assertion good for one request.
@Suite("Client authentication with signed assertions")
struct ClientAssertionTests {
    static let tokenURL = EngineFixture.issuer + "/oauth/token"

    @Test("private_key_jwt: a signed assertion is the client's credential at token, introspection and revocation; each one works once")
    func privateKeyJWT() async throws {
        let key = try SigningKey.generate(.es256)
        let fixture = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwks: Self.jwks([key]))])
        let assertion = try Self.assertion(key, now: fixture.clock.now())
        let tokens = try await fixture.token(Self.password + Self.authentication(assertion), basic: nil)
        #expect(!tokens.access_token.isEmpty)
        // The same assertion again: spent.
        let replayed = await Self.failure { try await fixture.token(Self.password + Self.authentication(assertion), basic: nil) }
        #expect(replayed?.code == .invalidClient)
        #expect(replayed?.errorDescription.contains("used before") == true)
        let introspected = try await fixture.engine.introspection.introspect(
            try EngineFixture.parameters([("token", tokens.access_token)] + Self.authentication(try Self.assertion(key, now: fixture.clock.now()))),
            basic: nil)
        #expect(introspected["active"] == .bool(true))
        try await fixture.engine.revocation.revoke(
            try EngineFixture.parameters([("token", try #require(tokens.refresh_token))]
                                         + Self.authentication(try Self.assertion(key, now: fixture.clock.now()))), basic: nil)
        let refreshed = await Self.failure {
            try await fixture.token([("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refresh_token))]
                                    + Self.authentication(try Self.assertion(key, now: fixture.clock.now())), basic: nil)
        }
        #expect(refreshed?.code == .invalidGrant)
    }

    @Test("private_key_jwt refuses the secret, no credentials, another key, another audience, a long life, iss ≠ sub, alg none and HS256 keyed with the public key")
    func privateKeyJWTRefusals() async throws {
        let key = try SigningKey.generate(.es256), other = try SigningKey.generate(.es256)
        let fixture = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwks: Self.jwks([key])),
                                                             EngineFixture.environment()])
        let now = fixture.clock.now()
        func refusal(_ authentication: [(String, String)], basic: BasicCredentials? = nil) async -> String? {
            await Self.failure { try await fixture.token(Self.password + authentication, basic: basic) }?.errorDescription
        }
        #expect(await refusal([], basic: Self.secretCredentials)?.contains("signed client assertion (private_key_jwt)") == true)
        #expect(await refusal([("client_id", Self.appKey), ("client_secret", Self.secret)])?.contains("private_key_jwt") == true)
        #expect(await refusal([("client_id", Self.appKey)])?.contains("private_key_jwt") == true)
        #expect(await refusal(Self.authentication(try Self.assertion(other, now: now))) == "The client assertion is not valid.")
        #expect(await refusal(Self.authentication(try Self.assertion(key, now: now, audience: "https://elsewhere.example.com/token")))?
            .contains("'aud'") == true)
        #expect(await refusal(Self.authentication(try Self.assertion(key, now: now, lifetime: 7200)))?.contains("at most an hour") == true)
        #expect(await refusal(Self.authentication(try Self.assertion(key, now: now, issuer: "someone-else")))?.contains("'iss'") == true)
        #expect(await refusal(Self.authentication(try Self.assertion(key, now: now, lifetime: -120))) == "The client assertion is not valid.")
        // Unsigned, and HS256 keyed with the client's public key (algorithm confusion).
        let payload = Self.claims(now: now)
        let unsigned = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
        #expect(await refusal(Self.authentication(unsigned)) == "The client assertion is not valid.")
        let publicBytes = try JSONSerialization.data(withJSONObject: key.publicKey.publicFields, options: .sortedKeys)
        #expect(await refusal(Self.authentication(SharedSecretJWT.sign(payload: payload, secret: publicBytes)))
                == "The client assertion is not valid.")
        // Two methods at once, an assertion of the wrong type, an assertion for another client_id.
        #expect(await refusal(Self.authentication(try Self.assertion(key, now: now)), basic: Self.secretCredentials)?
            .contains("one client authentication method") == true)
        #expect(await refusal([("client_assertion_type", "urn:example:saml"), ("client_assertion", "x")])?
            .contains("client_assertion_type") == true)
        #expect(await refusal([("client_id", EngineFixture.appKey)] + Self.authentication(try Self.assertion(key, now: now)))?
            .contains("different client") == true)
        // None of these spent anything: a good assertion still works.
        _ = try await fixture.token(Self.password + Self.authentication(try Self.assertion(key, now: now)), basic: nil)
    }

    @Test("PAR, appKey.service as client_id, /v3 audiences; validate refuses the environment's secret (it never travels)")
    func endpointsAndValidate() async throws {
        let key = try SigningKey.generate(.es256)
        let fixture = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwks: Self.jwks([key]))])
        let now = fixture.clock.now()
        let pushed = try await fixture.engine.pushedAuthorizations.push(
            try EngineFixture.parameters(EngineFixture.authorizationPairs(clientId: Self.appKey)
                                         + Self.authentication(try Self.assertion(key, now: now, audience: EngineFixture.issuer + "/oauth/par"))),
            basic: nil, clientAddress: nil)
        #expect(pushed.request_uri.hasPrefix(PushedAuthorizations.uriPrefix))
        let tokens = try await fixture.token(Self.password + [("client_id", Self.appKey + ".users")]
                                             + Self.authentication(try Self.assertion(key, now: now, audience: EngineFixture.issuer + "/v3/oauth/token")),
                                             basic: nil)
        let refused = await Self.failure { try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: Self.secretCredentials) }
        #expect(refused?.code == .invalidClient)
        #expect(refused?.errorDescription.contains("POST /oauth/introspect") == true)
    }

    @Test("client_secret_jwt: an HS256 assertion keyed with appSecret; an asymmetric one or the bare secret is refused")
    func clientSecretJWT() async throws {
        let fixture = try await EngineFixture(environments: [Self.environment(.clientSecretJWT)])
        let now = fixture.clock.now()
        let signed = SharedSecretJWT.sign(payload: Self.claims(now: now), secret: Data(Self.secret.utf8))
        let tokens = try await fixture.token(Self.password + Self.authentication(signed), basic: nil)
        #expect(!tokens.access_token.isEmpty)
        let wrongSecret = SharedSecretJWT.sign(payload: Self.claims(now: now), secret: Data((Self.secret + "x").utf8))
        #expect(await Self.failure { try await fixture.token(Self.password + Self.authentication(wrongSecret), basic: nil) }?.code
                == .invalidClient)
        let asymmetric = try Self.assertion(try SigningKey.generate(.es256), now: now)
        #expect(await Self.failure { try await fixture.token(Self.password + Self.authentication(asymmetric), basic: nil) }?.code
                == .invalidClient)
        #expect(await Self.failure { try await fixture.token(Self.password, basic: Self.secretCredentials) }?.code == .invalidClient)
    }

    @Test("jwksUri: fetched once, again for an unknown kid but at most every 30 s, the last good set kept through an outage")
    func publishedKeys() async throws {
        let first = try SigningKey.generate(.es256), second = try SigningKey.generate(.es256)
        let published = PublishedSets(Self.jwks([first]))
        let fixture = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwksUri: "https://keys.example.com/jwks")],
                                              clientKeys: published)
        func signIn(_ key: SigningKey) async -> OAuthError? {
            await Self.failure { try await fixture.token(Self.password + Self.authentication(try Self.assertion(key, now: fixture.clock.now())),
                                                          basic: nil) }
        }
        #expect(await signIn(first) == nil)
        #expect(await signIn(first) == nil)
        #expect(published.fetches == 1)
        // The client rotates to a second key: the new kid fetches again, once per 30 s.
        published.set(Self.jwks([first, second]))
        fixture.clock.advance(31)
        #expect(await signIn(second) == nil)
        #expect(published.fetches == 2)
        // A kid nobody published: no fetch within 30 s of the last one, then one more.
        let third = try SigningKey.generate(.es256)
        #expect(await signIn(third)?.code == .invalidClient)
        #expect(await signIn(third)?.code == .invalidClient)
        #expect(published.fetches == 2)
        fixture.clock.advance(31)
        #expect(await signIn(third)?.code == .invalidClient)
        #expect(published.fetches == 3)
        // The client's server fails: the last good set still serves once it is five minutes old,
        // for a day; then nothing does.
        published.fail()
        fixture.clock.advance(400)
        #expect(await signIn(second) == nil)
        #expect(published.fetches == 4)
        fixture.clock.advance(86_400)
        #expect(await signIn(second)?.errorDescription.contains("could not be fetched") == true)
        // An empty set revokes every key at once.
        published.set(#"{"keys":[]}"#)
        fixture.clock.advance(31)
        #expect(await signIn(second)?.code == .invalidClient)
        #expect(published.fetches == 6)
        fixture.clock.advance(400)
        #expect(await signIn(second)?.errorDescription == "The client assertion is not valid.")
    }

    @Test("a published set that never arrived is invalid_client with nothing spent; an environment without clientAuth takes no assertion")
    func unavailableKeysAndSecretClients() async throws {
        let key = try SigningKey.generate(.es256)
        let published = PublishedSets(nil)
        let fixture = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwksUri: "https://keys.example.com/jwks"),
                                                             EngineFixture.environment()], clientKeys: published)
        let assertion = try Self.assertion(key, now: fixture.clock.now())
        let refused = await Self.failure { try await fixture.token(Self.password + Self.authentication(assertion), basic: nil) }
        #expect(refused?.errorDescription.contains("could not be fetched") == true)
        published.set(Self.jwks([key]))
        fixture.clock.advance(31)
        _ = try await fixture.token(Self.password + Self.authentication(assertion), basic: nil)
        let secretClient = try Self.assertion(key, now: fixture.clock.now(), client: EngineFixture.appKey)
        let answer = await Self.failure {
            try await fixture.token([("grant_type", "password"), ("username", TestUser.alice.username), ("password", TestUser.alice.password)]
                                    + Self.authentication(secretClient), basic: nil)
        }
        #expect(answer?.errorDescription.contains("authenticates with its secret") == true)
    }

    @Test("a configured JWK set with private members or no usable key is a configuration problem")
    func configuredKeysAreChecked() async throws {
        let key = try SigningKey.generate(.es256)
        var privateSet = key.publicKey.publicFields
        privateSet["d"] = "AAAA"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [privateSet]]), as: UTF8.self)
        for jwks in [text, #"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#, #"{"keys":[]}"#, "not json"] {
            await #expect(throws: ConfigProblems.self) {
                _ = try await EngineFixture(environments: [Self.environment(.privateKeyJWT, jwks: jwks)])
            }
        }
    }

    // MARK: - Helpers

    static let appKey = "kid_jwt"
    static let secret = "a-client-secret-of-at-least-32-characters"
    static let secretCredentials = BasicCredentials(user: appKey, password: secret)
    static let password = [("grant_type", "password"), ("username", TestUser.alice.username), ("password", TestUser.alice.password)]

    static func environment(_ method: ClientAuthSettings.Method, jwks: String? = nil, jwksUri: String? = nil) -> Environment {
        EngineFixture.environment(appKey: appKey, appSecret: secret) {
            $0.clientAuth = ClientAuthSettings(method: method, jwks: jwks, jwksUri: jwksUri.flatMap(URL.init(string:)))
        }
    }

    static func jwks(_ keys: [SigningKey]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: ["keys": keys.map(\.publicKey.publicFields)], options: .sortedKeys)
        return String(decoding: data, as: UTF8.self)
    }

    static func claims(now: Date, client: String = appKey, issuer: String? = nil, audience: String = tokenURL,
                       lifetime: TimeInterval = 60) -> Data {
        let claims: [String: Any] = ["iss": issuer ?? client, "sub": client, "aud": audience, "jti": UUID().uuidString,
                                     "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970 + lifetime)]
        return try! JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
    }

    static func assertion(_ key: SigningKey, now: Date, client: String = appKey, issuer: String? = nil,
                          audience: String = tokenURL, lifetime: TimeInterval = 60) throws -> String {
        try CompactJWS.sign(payload: claims(now: now, client: client, issuer: issuer, audience: audience, lifetime: lifetime),
                            type: "JWT", key: key)
    }

    static func authentication(_ assertion: String) -> [(String, String)] {
        [("client_assertion_type", ClientAssertion.type), ("client_assertion", assertion)]
    }

    static func failure(_ body: () async throws -> some Any) async -> OAuthError? {
        do {
            _ = try await body()
            return nil
        } catch let error as OAuthError {
            return error
        } catch {
            return OAuthError.internalFailure("\(error)")
        }
    }

    /// A client's key server: serves what the test sets, counts fetches, fails when told to.
    final class PublishedSets: ClientKeyFetching {
        private let state: Mutex<(jwks: String?, fetches: Int)>

        init(_ jwks: String?) { state = Mutex((jwks, 0)) }

        var fetches: Int { state.withLock { $0.fetches } }
        func set(_ jwks: String) { state.withLock { $0.jwks = jwks } }
        func fail() { state.withLock { $0.jwks = nil } }

        func jwks(at url: URL) async throws -> Data {
            let jwks = state.withLock { state -> String? in
                state.fetches += 1
                return state.jwks
            }
            guard let jwks else { throw URLError(.cannotConnectToHost) }
            return Data(jwks.utf8)
        }
    }
}
