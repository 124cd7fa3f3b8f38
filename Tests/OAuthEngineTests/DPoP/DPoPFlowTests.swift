import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import JOSE
@testable import OAuthEngine
import Testing

/// DPoP through the engine (docs/dpop.md): tokens bound at the token endpoint, used only with a
/// proof of their key at validate and userinfo, refreshed only with it, codes bound by
/// `dpop_jkt`, nonces, replay, introspection's `cnf`.
@Suite("DPoP flows")
struct DPoPFlowTests {
    static let tokenURL = EngineFixture.issuer + "/oauth/token"
    static let validateURL = EngineFixture.issuer + "/oauth/validate"

    /// A code of an automated grant whose authorization request added `extra`.
    static func code(_ fixture: EngineFixture, extra: [(String, String)] = []) async throws -> String {
        let uri = try await fixture.engine.authorize.automatedGrant(
            try EngineFixture.parameters(EngineFixture.authorizationPairs() + extra), basic: nil, clientAddress: nil)
        let outcome = try await fixture.engine.passwordSignIn.signIn(
            pendingId: EngineFixture.lastPathComponent(uri),
            parameters: try EngineFixture.parameters([("username", TestUser.alice.username), ("password", TestUser.alice.password)]),
            csrfToken: nil, browser: BrowserContext())
        let completion = try #require(outcome.completion)
        return try #require(EngineFixture.query(completion.redirect)["code"])
    }

    static func exchange(_ fixture: EngineFixture, _ code: String, proof: String?) async throws -> TokenResponse {
        try await fixture.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", EngineFixture.redirect),
                                 ("client_id", EngineFixture.appKey), ("code_verifier", EngineFixture.verifier)],
                                basic: nil, dpop: proof.map { [$0] } ?? [])
    }

    static func validate(_ fixture: EngineFixture, _ token: String, proofs: [String]) async throws -> TokenView {
        try await fixture.engine.validation.validate(
            accessToken: token, basic: nil,
            presented: .dpop(proofs: proofs, request: DPoPRequest(method: "GET", url: validateURL)))
    }

    static func error(_ body: () async throws -> some Any) async -> OAuthError? {
        do { _ = try await body() } catch let error as OAuthError { return error } catch { return nil }
        return nil
    }

    @Test("a proof at the token endpoint binds the tokens: DPoP type, cnf.jkt; validate needs a fresh proof of that key with ath")
    func boundAccessToken() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let now = fixture.clock.now()
        let tokens = try await Self.exchange(fixture, try await Self.code(fixture), proof: key.proof("POST", Self.tokenURL, issuedAt: now))
        #expect(tokens.token_type == "DPoP")
        let claims = try #require(CompactJWS.decode(tokens.access_token)?.claims)
        #expect(claims["cnf"] == .object(["jkt": .string(key.thumbprint)]))

        let bearer = await Self.error { try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: nil) }
        #expect(bearer?.code == .invalidToken && bearer?.dpopChallenge == true)
        let proof = key.proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: now)
        _ = try await Self.validate(fixture, tokens.access_token, proofs: [proof])
        #expect(await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: [proof]) }?.code == .invalidDPoPProof)
        let other = TestDPoPKey().proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: now)
        let wrongKey = await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: [other]) }
        #expect(wrongKey?.code == .invalidDPoPProof && wrongKey?.status == 401 && wrongKey?.dpopChallenge == true)
        let noAth = key.proof("GET", Self.validateURL, issuedAt: now)
        #expect(await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: [noAth]) }?.code == .invalidDPoPProof)
        let two = [key.proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: now),
                   key.proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: now)]
        #expect(await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: two) }?.code == .invalidDPoPProof)
        #expect(await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: []) }?.code == .invalidDPoPProof)
        let userinfo = await Self.error { try await fixture.engine.validation.userInfo(accessToken: tokens.access_token) }
        #expect(userinfo?.code == .invalidToken)

        let asked = try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: EngineFixture.appCredentials,
                                                                  presented: .inspection)
        #expect(asked.body["cnf"] == .object(["jkt": .string(key.thumbprint)]))
        #expect(asked.body["client_token"] == nil && asked.body["datalink_headers"] == .object([:]) && asked.dataLinkHeaders.isEmpty)
        let anonymous = await Self.error {
            try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: nil, presented: .inspection)
        }
        #expect(anonymous?.code == .invalidClient)
        let otherEnvironment = BasicCredentials(user: EngineFixture.appKey, password: "not-the-secret-123")
        #expect(await Self.error {
            try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: otherEnvironment, presented: .inspection)
        }?.code == .invalidClient)

        let introspection = try await fixture.engine.introspection.introspect(
            try EngineFixture.parameters([("token", tokens.access_token)]), basic: EngineFixture.appCredentials)
        let members = Dictionary(uniqueKeysWithValues: introspection.members.map { ($0.key, $0.value) })
        #expect(members["token_type"] == .string("DPoP"))
        #expect(members["cnf"] == .object(["jkt": .string(key.thumbprint)]))
    }

    @Test("a back end's validate (environment credentials, no proof) answers who the token is for and cnf, never upstream credentials")
    func backEndValidate() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("users") { $0.provider.datalinkHeaderMapping = ["email": "X-Email"] },
        ])])
        let key = TestDPoPKey()
        let tokens = try await fixture.passwordGrant()
        #expect(try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: nil).dataLinkHeaders == ["X-Email": "alice@example.org"])
        let bound = try await fixture.token([("grant_type", "password"), ("client_id", EngineFixture.appKey),
                                             ("username", TestUser.alice.username), ("password", TestUser.alice.password)],
                                            dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        let proven = try await Self.validate(fixture, bound.access_token, proofs: [
            key.proof("GET", Self.validateURL, accessToken: bound.access_token, issuedAt: fixture.clock.now()),
        ])
        #expect(proven.dataLinkHeaders == ["X-Email": "alice@example.org"])
        let asked = try await fixture.engine.validation.validate(accessToken: bound.access_token, basic: EngineFixture.appCredentials,
                                                                  presented: .inspection)
        #expect(asked.body["id"] == .string("alice") && asked.body["cnf"] == .object(["jkt": .string(key.thumbprint)]))
        #expect(asked.dataLinkHeaders.isEmpty && asked.body["datalink_headers"] == .object([:]) && asked.body["client_token"] == nil)
    }

    @Test("a bearer token sent with the DPoP scheme is refused; bearer use still works")
    func bearerTokenAsDPoP() async throws {
        let fixture = try await EngineFixture()
        let tokens = try await Self.exchange(fixture, try await Self.code(fixture), proof: nil)
        #expect(tokens.token_type == "Bearer")
        let proof = TestDPoPKey().proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: fixture.clock.now())
        let refused = await Self.error { try await Self.validate(fixture, tokens.access_token, proofs: [proof]) }
        #expect(refused?.code == .invalidToken && refused?.dpopChallenge == true)
        _ = try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: nil)
    }

    @Test("a bound refresh token needs a proof of its key (public client); the new pair stays bound")
    func boundRefresh() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let tokens = try await Self.exchange(fixture, try await Self.code(fixture),
                                             proof: key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now()))
        let refresh = try #require(tokens.refresh_token)
        let pairs = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", EngineFixture.appKey)]
        #expect(await Self.error { try await fixture.token(pairs, basic: nil) }?.code == .invalidDPoPProof)
        let thief = TestDPoPKey().proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())
        #expect(await Self.error { try await fixture.token(pairs, basic: nil, dpop: [thief]) }?.code == .invalidDPoPProof)
        let rotated = try await fixture.token(pairs, basic: nil, dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        #expect(rotated.token_type == "DPoP")
        let stale = key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now().addingTimeInterval(-400))
        let next = [("grant_type", "refresh_token"), ("refresh_token", try #require(rotated.refresh_token)), ("client_id", EngineFixture.appKey)]
        #expect(await Self.error { try await fixture.token(next, basic: nil, dpop: [stale]) }?.code == .invalidDPoPProof)
    }

    @Test("opaque tokens are bound through their family")
    func opaqueTokens() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let tokens = try await fixture.passwordGrant(clientId: "\(EngineFixture.appKey).opaque")
        #expect(tokens.token_type == "Bearer")
        let bound = try await fixture.token([("grant_type", "password"), ("client_id", "\(EngineFixture.appKey).opaque"),
                                             ("username", TestUser.alice.username), ("password", TestUser.alice.password),
                                             ("scope", "openid")],
                                            dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        #expect(bound.token_type == "DPoP" && !bound.access_token.contains("."))
        #expect(await Self.error { try await fixture.engine.validation.validate(accessToken: bound.access_token, basic: nil) }?.code == .invalidToken)
        let proof = key.proof("GET", Self.validateURL, accessToken: bound.access_token, issuedAt: fixture.clock.now())
        _ = try await Self.validate(fixture, bound.access_token, proofs: [proof])
    }

    @Test("dpop_jkt binds the code: redeemed only with a proof of that key; a malformed one is refused at authorization")
    func codeBoundByThumbprint() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let code = try await Self.code(fixture, extra: [("dpop_jkt", key.thumbprint)])
        #expect(await Self.error { try await Self.exchange(fixture, code, proof: nil) }?.code == .invalidDPoPProof)
        let other = try await Self.code(fixture, extra: [("dpop_jkt", key.thumbprint)])
        let wrong = TestDPoPKey().proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())
        #expect(await Self.error { try await Self.exchange(fixture, other, proof: wrong) }?.code == .invalidDPoPProof)
        let third = try await Self.code(fixture, extra: [("dpop_jkt", key.thumbprint)])
        let tokens = try await Self.exchange(fixture, third, proof: key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now()))
        #expect(tokens.token_type == "DPoP")
        #expect(await EngineFixture.errorCode { try await Self.code(fixture, extra: [("dpop_jkt", "short")]) } == "invalid_request")
    }

    @Test("PAR with a proof binds the pushed request to its key; a dpop_jkt naming another key is refused")
    func pushedWithProof() async throws {
        let fixture = try await EngineFixture()
        let key = TestDPoPKey()
        let parURL = EngineFixture.issuer + "/oauth/par"
        let pushed = try await fixture.engine.pushedAuthorizations.push(
            try EngineFixture.parameters(EngineFixture.authorizationPairs()), basic: EngineFixture.appCredentials, clientAddress: nil,
            dpopProofs: [key.proof("POST", parURL, issuedAt: fixture.clock.now())])
        let expanded = try await fixture.engine.pushedAuthorizations.expand(
            try EngineFixture.parameters([("client_id", EngineFixture.appKey), ("request_uri", pushed.request_uri)]))
        #expect(expanded.parameters["dpop_jkt"] == key.thumbprint)
        let mismatch = await Self.error {
            try await fixture.engine.pushedAuthorizations.push(
                try EngineFixture.parameters(EngineFixture.authorizationPairs() + [("dpop_jkt", TestDPoPKey().thumbprint)]),
                basic: EngineFixture.appCredentials, clientAddress: nil, dpopProofs: [key.proof("POST", parURL, issuedAt: fixture.clock.now())])
        }
        #expect(mismatch?.code == .invalidDPoPProof)
    }

    @Test("nonces: use_dpop_nonce with a DPoP-Nonce, accepted for 5 minutes on any request, then asked again")
    func nonces() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("users") { $0.dpop = DPoPSettings(required: true, nonce: true) },
        ])])
        let key = TestDPoPKey()
        let pairs = [("grant_type", "password"), ("client_id", EngineFixture.appKey), ("username", TestUser.alice.username),
                     ("password", TestUser.alice.password), ("scope", "openid")]
        #expect(await Self.error { try await fixture.token(pairs) }?.code == .invalidDPoPProof)
        let asked = try #require(await Self.error {
            try await fixture.token(pairs, dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        })
        #expect(asked.code == .useDPoPNonce && asked.status == 400)
        let nonce = try #require(asked.dpopNonce)
        let forged = await Self.error {
            try await fixture.token(pairs, dpop: [key.proof("POST", Self.tokenURL, nonce: "forged", issuedAt: fixture.clock.now())])
        }
        #expect(forged?.code == .useDPoPNonce)
        let tokens = try await fixture.token(pairs, dpop: [key.proof("POST", Self.tokenURL, nonce: nonce, issuedAt: fixture.clock.now())])
        let resource = await Self.error {
            try await Self.validate(fixture, tokens.access_token,
                                    proofs: [key.proof("GET", Self.validateURL, accessToken: tokens.access_token, issuedAt: fixture.clock.now())])
        }
        #expect(resource?.code == .useDPoPNonce && resource?.status == 401 && resource?.dpopChallenge == true)
        _ = try await Self.validate(fixture, tokens.access_token, proofs: [
            key.proof("GET", Self.validateURL, accessToken: tokens.access_token, nonce: nonce, issuedAt: fixture.clock.now()),
        ])
        fixture.clock.advance(301)
        let expired = await Self.error {
            try await fixture.token(pairs, dpop: [key.proof("POST", Self.tokenURL, nonce: nonce, issuedAt: fixture.clock.now())])
        }
        #expect(expired?.code == .useDPoPNonce && expired?.dpopNonce != nonce)
    }

    @Test("the data-link gateway: a bound token only with a proof for the gateway's own URL")
    func gateway() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment {
            $0.dataLinks = [DataLink(name: "orders", url: URL(string: "http://127.0.0.1:9/orders")!, timeoutSeconds: 5)]
        }])
        let key = TestDPoPKey()
        let tokens = try await fixture.token([("grant_type", "password"), ("client_id", EngineFixture.appKey),
                                              ("username", TestUser.alice.username), ("password", TestUser.alice.password)],
                                             dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        let url = EngineFixture.issuer + "/_datalink/orders/list"
        #expect(await Self.error { try await fixture.engine.validation.dataLinkTarget(name: "orders", accessToken: tokens.access_token) }?
            .code == .invalidToken)
        let proof = key.proof("DELETE", url, accessToken: tokens.access_token, issuedAt: fixture.clock.now())
        let request = DPoPRequest(method: "DELETE", url: url)
        let target = try await fixture.engine.validation.dataLinkTarget(
            name: "orders", accessToken: tokens.access_token, presented: .dpop(proofs: [proof], request: request))
        #expect(target.link.name == "orders")
        let elsewhere = key.proof("DELETE", EngineFixture.issuer + "/_datalink/orders/other", accessToken: tokens.access_token,
                                  issuedAt: fixture.clock.now())
        #expect(await Self.error {
            try await fixture.engine.validation.dataLinkTarget(name: "orders", accessToken: tokens.access_token,
                                                               presented: .dpop(proofs: [elsewhere], request: request))
        }?.code == .invalidDPoPProof)
    }

    @Test("a bound subject token is exchanged only with a proof of its key, and the new token is bound to it")
    func boundSubjectInExchange() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.environment(services: [
            EngineFixture.service("users") { $0.tokenExchange = TokenExchangeSettings(audiences: [], actors: [], dataLinks: []) },
        ])])
        let key = TestDPoPKey()
        let subject = try await fixture.token([("grant_type", "password"), ("client_id", EngineFixture.appKey),
                                               ("username", TestUser.alice.username), ("password", TestUser.alice.password),
                                               ("scope", "openid")],
                                              dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        let pairs = [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", EngineFixture.appKey),
                     ("subject_token", subject.access_token), ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")]
        #expect(await Self.error { try await fixture.token(pairs) }?.code == .invalidGrant)
        let stranger = TestDPoPKey().proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())
        #expect(await Self.error { try await fixture.token(pairs, dpop: [stranger]) }?.code == .invalidGrant)
        let exchanged = try await fixture.token(pairs, dpop: [key.proof("POST", Self.tokenURL, issuedAt: fixture.clock.now())])
        #expect(exchanged.token_type == "DPoP")
    }
}

/// `dpop_bound_access_tokens` (RFC 9449 §5.2) of a registered app instance.
@Suite("DPoP for app instances")
struct DPoPInstanceTests {
    @Test("an instance registered with dpop_bound_access_tokens must send proofs; the metadata reads back and can be updated")
    func boundInstance() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.registeringEnvironment()])
        let statement = try TestSoftware.statement(expires: fixture.clock.now().addingTimeInterval(600))
        let body = TestSoftware.body(statement).merging(["dpop_bound_access_tokens": .bool(true)]) { $1 }
        let instance = try await fixture.engine.registration.register(body: body, initialAccessToken: TestSoftware.initialAccessToken)
        #expect(instance.dpop_bound_access_tokens == true)
        let relogin = [("grant_type", "client_credentials")]
        let missing = await DPoPFlowTests.error { try await fixture.token(relogin, basic: EngineFixture.credentials(of: instance)) }
        #expect(missing?.code == .invalidDPoPProof)
        let bad = TestSoftware.body(statement).merging(["dpop_bound_access_tokens": .string("yes")]) { $1 }
        #expect(await EngineFixture.errorCode {
            try await fixture.engine.registration.register(body: bad, initialAccessToken: TestSoftware.initialAccessToken)
        } == "invalid_client_metadata")
        let updated = try await fixture.engine.registration.update(
            clientId: instance.client_id, registrationToken: instance.registration_access_token,
            body: ["dpop_bound_access_tokens": .bool(false)])
        #expect(updated.dpop_bound_access_tokens == nil)
        let plain = try await fixture.registerInstance()
        #expect(plain.dpop_bound_access_tokens == nil)
    }
}
