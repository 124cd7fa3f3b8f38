import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import JOSE
@testable import OAuthEngine
import Testing

/// Signed authorization requests (RFC 9101, docs/client-authentication.md): only the object's
/// claims count, it is verified with the client's own keys, and an environment can take nothing
/// else, by value or through PAR.
@Suite("Signed request objects (JAR)")
struct RequestObjectTests {
    static let appKey = "kid_jar"
    static let secret = "a-client-secret-of-at-least-32-characters"

    static func fixture(_ key: SigningKey, required: Bool = false) async throws -> EngineFixture {
        let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [key.publicKey.publicFields]]), as: UTF8.self)
        let signing = EngineFixture.environment(appKey: appKey, appSecret: secret) {
            $0.clientAuth = ClientAuthSettings(method: .privateKeyJWT, jwks: jwks)
            $0.requireSignedRequestObject = required
        }
        return try await EngineFixture(environments: [signing, EngineFixture.environment()])
    }

    /// The request's parameters as claims of a JWT `key` signs.
    static func object(_ key: SigningKey, now: Date, state: String = "inside", changes: [String: Any?] = [:]) throws -> String {
        var claims: [String: Any] = Dictionary(uniqueKeysWithValues: EngineFixture.authorizationPairs(clientId: appKey).map { ($0.0, $0.1 as Any) })
        claims["state"] = state
        claims["nonce"] = "n-1"
        claims["iss"] = appKey
        claims["aud"] = EngineFixture.issuer
        claims["exp"] = Int(now.timeIntervalSince1970) + 120
        for (name, value) in changes { claims[name] = value }
        return try CompactJWS.sign(payload: try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys),
                                   type: "oauth-authz-req+jwt", key: key)
    }

    static func errorPage(_ outcome: AuthorizeOutcome) -> OAuthError? {
        if case .errorPage(let error, _) = outcome { return error }
        return nil
    }

    @Test("by value: only the object's claims count (the outer state is ignored); the sign-in ends with the object's state and nonce")
    func byValue() async throws {
        let key = try SigningKey.generate(.es256)
        let fixture = try await Self.fixture(key)
        var browser = BrowserContext()
        let pairs = [("client_id", Self.appKey), ("state", "outside"), ("scope", "openid profile"),
                     ("request", try Self.object(key, now: fixture.clock.now()))]
        let completion = try await fixture.signedIn(pairs, browser: &browser)
        let query = EngineFixture.query(completion.redirect)
        #expect(query["state"] == "inside")
        let code = try #require(query["code"])
        let tokens = try await fixture.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", EngineFixture.redirect),
                                              ("code_verifier", EngineFixture.verifier)] + Self.assertion(key, now: fixture.clock.now()),
                                             basic: nil)
        #expect(EngineFixture.claims(tokens.id_token)["nonce"] == .string("n-1"))
    }

    /// Client authentication of the signing environment (private_key_jwt with the same key).
    static func assertion(_ key: SigningKey, now: Date) throws -> [(String, String)] {
        let claims: [String: Any] = ["iss": appKey, "sub": appKey, "aud": EngineFixture.issuer, "jti": UUID().uuidString,
                                     "exp": Int(now.timeIntervalSince1970) + 60]
        return [("client_assertion_type", ClientAssertion.type),
                ("client_assertion", try CompactJWS.sign(payload: try JSONSerialization.data(withJSONObject: claims), type: "JWT", key: key))]
    }

    @Test("refused on an error page: another key, alg none, another audience, a client_id claim of another client, a long life, a request inside")
    func refusals() async throws {
        let key = try SigningKey.generate(.es256)
        let fixture = try await Self.fixture(key)
        let now = fixture.clock.now()
        func outcome(_ object: String) async throws -> OAuthError? {
            var browser = BrowserContext()
            return Self.errorPage(try await fixture.authorize([("client_id", Self.appKey), ("request", object)], browser: &browser))
        }
        #expect(try await outcome(try Self.object(try SigningKey.generate(.es256), now: now))?.code == .invalidRequestObject)
        let unsigned = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Data(#"{"client_id":"kid_jar"}"#.utf8)) + "."
        #expect(try await outcome(unsigned)?.code == .invalidRequestObject)
        #expect(try await outcome(try Self.object(key, now: now, changes: ["aud": "https://elsewhere.example.com"]))?.code == .invalidRequestObject)
        #expect(try await outcome(try Self.object(key, now: now, changes: ["client_id": EngineFixture.appKey]))?.code == .invalidRequestObject)
        #expect(try await outcome(try Self.object(key, now: now, changes: ["exp": Int(now.timeIntervalSince1970) + 7200]))?
            .errorDescription.contains("at most an hour") == true)
        #expect(try await outcome(try Self.object(key, now: now, changes: ["request_uri": "urn:x"]))?.code == .invalidRequestObject)
    }

    @Test("requireSignedRequestObject: plain requests and plain pushes are refused; a pushed object works through its request_uri")
    func required() async throws {
        let key = try SigningKey.generate(.es256)
        let fixture = try await Self.fixture(key, required: true)
        var browser = BrowserContext()
        let plain = try await fixture.authorize(EngineFixture.authorizationPairs(clientId: Self.appKey), browser: &browser)
        #expect(Self.errorPage(plain)?.errorDescription.contains("must sign") == true)
        let assertion = { try Self.assertion(key, now: fixture.clock.now()) }
        let plainPush = await EngineFixture.errorCode {
            try await fixture.engine.pushedAuthorizations.push(try EngineFixture.parameters(EngineFixture.authorizationPairs(clientId: Self.appKey)
                                                                                            + assertion()), basic: nil, clientAddress: nil)
        }
        #expect(plainPush == "invalid_request")
        let pushed = try await fixture.engine.pushedAuthorizations.push(
            try EngineFixture.parameters([("client_id", Self.appKey), ("request", try Self.object(key, now: fixture.clock.now()))] + assertion()),
            basic: nil, clientAddress: nil)
        let form = try await fixture.loginForm([("client_id", Self.appKey), ("request_uri", pushed.request_uri)], browser: &browser)
        let outcome = try await fixture.submit(form, browser: &browser)
        #expect(EngineFixture.query(try #require(outcome.completion).redirect)["state"] == "inside")
    }

    @Test("a client that does not sign gets request_not_supported at its redirect URI, as before")
    func clientsWithoutKeys() async throws {
        let fixture = try await Self.fixture(try SigningKey.generate(.es256))
        var browser = BrowserContext()
        let outcome = try await fixture.authorize(EngineFixture.authorizationPairs() + [("request", "eyJhbGciOiJub25lIn0.e30.")], browser: &browser)
        guard case .redirect(let answer, _) = outcome else {
            Issue.record("expected a redirect, got \(outcome)")
            return
        }
        #expect(EngineFixture.query(answer)["error"] == "request_not_supported")
    }
}
