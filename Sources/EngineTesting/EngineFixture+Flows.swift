import Foundation
import IdentityCore
import OAuthEngine

/// The steps of the usual flows through the fixture's engine, as an app and a browser take them
/// (docs/protocol.md): each one call of an engine part's public API. A `BrowserContext` passed
/// `inout` is the browser: it keeps the binding cookie a sign-in gives it and the SSO cookie a
/// finished sign-in sets.
extension EngineFixture {
    /// Basic credentials of the default environment (`appKey:appSecret`).
    public static let appCredentials = BasicCredentials(user: appKey, password: appSecret)

    public static func parameters(_ pairs: [(String, String)]) throws -> OAuthParameters { try OAuthParameters(pairs: pairs) }

    /// An authorization request of `clientId` for `scope`, with `state` and (unless `pkce` is
    /// false) the S256 challenge of ``verifier``.
    public static func authorizationPairs(clientId: String = EngineFixture.appKey, redirectURI: String = EngineFixture.redirect,
                                          scope: String = "openid", pkce: Bool = true) -> [(String, String)] {
        var pairs = [("client_id", clientId), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", scope), ("state", "st")]
        if pkce { pairs += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return pairs
    }

    // MARK: - Browser

    /// `GET /oauth/auth` in `browser`, which keeps the binding cookie the answer sets.
    public func authorize(_ pairs: [(String, String)], browser: inout BrowserContext) async throws -> AuthorizeOutcome {
        let result = await engine.authorize.authorize(try Self.parameters(pairs), browser: browser)
        if let binding = result.binding { browser.binding = binding }
        return result.outcome
    }

    /// The hosted login form `pairs` lead to in `browser`.
    public func loginForm(_ pairs: [(String, String)] = EngineFixture.authorizationPairs(),
                          browser: inout BrowserContext) async throws -> LoginFormModel {
        let outcome = try await authorize(pairs, browser: &browser)
        guard case .loginForm(let form) = outcome else { throw UnexpectedOutcome("expected the login form, got \(outcome)") }
        return form
    }

    /// Posts `username` and `password` with the form's CSRF token from `browser`; a browser that
    /// signs in keeps the SSO cookie it is given.
    public func submit(_ form: LoginFormModel, username: String = TestUser.alice.username, password: String = TestUser.alice.password,
                       browser: inout BrowserContext) async throws -> PasswordSignInOutcome {
        let outcome = try await engine.passwordSignIn.signIn(
            pendingId: Self.lastPathComponent(form.action), parameters: try Self.parameters([("username", username), ("password", password)]),
            csrfToken: form.csrfToken, browser: browser)
        if let sso = outcome.completion?.sso { browser.ssoToken = sso.value }
        return outcome
    }

    /// The login form of `pairs` filled in and posted by `browser`.
    public func browserSignIn(_ pairs: [(String, String)] = EngineFixture.authorizationPairs(), username: String = TestUser.alice.username,
                              password: String = TestUser.alice.password, browser: inout BrowserContext) async throws -> PasswordSignInOutcome {
        try await submit(try await loginForm(pairs, browser: &browser), username: username, password: password, browser: &browser)
    }

    /// A browser sign-in that must succeed: its completion (the redirect with the code).
    public func signedIn(_ pairs: [(String, String)] = EngineFixture.authorizationPairs(), username: String = TestUser.alice.username,
                         password: String = TestUser.alice.password, browser: inout BrowserContext) async throws -> SignInCompletion {
        let outcome = try await browserSignIn(pairs, username: username, password: password, browser: &browser)
        guard let completion = outcome.completion else { throw UnexpectedOutcome("expected a signed-in browser, got \(outcome)") }
        return completion
    }

    // MARK: - App (API mode and the token endpoint)

    /// The automated grant (docs/protocol.md, "The temp login URI"): `POST /oauth/auth`, then the
    /// credentials (and `otp`) posted to the temp login URI.
    public func automatedSignIn(clientId: String = EngineFixture.appKey, username: String = TestUser.alice.username,
                                password: String = TestUser.alice.password, scope: String = "openid", pkce: Bool = true,
                                otp: String? = nil, clientAddress: String? = nil) async throws -> PasswordSignInOutcome {
        let pairs = Self.authorizationPairs(clientId: clientId, scope: scope, pkce: pkce)
        let uri = try await engine.authorize.automatedGrant(try Self.parameters(pairs), basic: nil, clientAddress: clientAddress)
        var credentials = [("username", username), ("password", password)]
        if let otp { credentials.append(("otp", otp)) }
        return try await engine.passwordSignIn.signIn(pendingId: Self.lastPathComponent(uri), parameters: try Self.parameters(credentials),
                                                      csrfToken: nil, browser: BrowserContext(clientAddress: clientAddress))
    }

    /// The code of an automated grant that must succeed.
    public func code(clientId: String = EngineFixture.appKey, username: String = TestUser.alice.username, password: String = TestUser.alice.password,
                     scope: String = "openid", pkce: Bool = true) async throws -> String {
        let outcome = try await automatedSignIn(clientId: clientId, username: username, password: password, scope: scope, pkce: pkce)
        guard let completion = outcome.completion, let code = Self.query(completion.redirect)["code"] else {
            throw UnexpectedOutcome("expected a code, got \(outcome)")
        }
        return code
    }

    /// `POST /oauth/token` with `pairs`, authenticated with `basic` (the app's credentials by default),
    /// with `dpop` as its `DPoP` header values.
    public func token(_ pairs: [(String, String)], basic: BasicCredentials? = EngineFixture.appCredentials,
                      clientAddress: String? = nil, dpop: [String] = []) async throws -> TokenResponse {
        try await engine.tokens.token(try Self.parameters(pairs), basic: basic, clientAddress: clientAddress, dpopProofs: dpop)
    }

    /// `grant_type=authorization_code` for `code`, with ``verifier`` unless `verifier` is nil.
    public func exchange(_ code: String, clientId: String = EngineFixture.appKey, redirectURI: String = EngineFixture.redirect,
                         verifier: String? = EngineFixture.verifier,
                         basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> TokenResponse {
        var pairs = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", clientId)]
        if let verifier { pairs.append(("code_verifier", verifier)) }
        return try await token(pairs, basic: basic)
    }

    /// `grant_type=password`.
    public func passwordGrant(clientId: String = EngineFixture.appKey, username: String = TestUser.alice.username,
                              password: String = TestUser.alice.password, scope: String = "openid", otp: String? = nil,
                              basic: BasicCredentials? = EngineFixture.appCredentials, clientAddress: String? = nil) async throws -> TokenResponse {
        var pairs = [("grant_type", "password"), ("client_id", clientId), ("username", username), ("password", password), ("scope", scope)]
        if let otp { pairs.append(("otp", otp)) }
        return try await token(pairs, basic: basic, clientAddress: clientAddress)
    }

    /// `grant_type=refresh_token`.
    public func refresh(_ refreshToken: String?, clientId: String = EngineFixture.appKey, extra: [(String, String)] = [],
                        basic: BasicCredentials? = EngineFixture.appCredentials) async throws -> TokenResponse {
        guard let refreshToken else { throw UnexpectedOutcome("no refresh token was issued") }
        return try await token([("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientId)] + extra,
                               basic: basic)
    }
}

/// Reading the engine's answers.
extension EngineFixture {
    /// The OAuth error code `body` throws (`invalid_grant`, …), or nil when it succeeds.
    public static func errorCode(_ body: () async throws -> some Any) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as OAuthError {
            return error.code.rawValue
        } catch let failure as AuthorizationFailure {
            return failure.error.code.rawValue
        } catch {
            return "unexpected: \(error)"
        }
    }

    /// `value`, or a failure saying that `what` was expected.
    public static func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw UnexpectedOutcome("expected \(what)") }
        return value
    }

    /// The query parameters of `url`.
    /// The fields of an answer to the client, whatever its response mode.
    public static func query(_ answer: ClientAnswer) -> [String: String] {
        Dictionary(answer.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    public static func query(_ url: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    /// The last path segment of `url` (the id in a temp login URI, a second-step page, …).
    public static func lastPathComponent(_ url: String) -> String {
        String(url.split(separator: "?").first?.split(separator: "/").last ?? "")
    }

    /// The payload of a JWT, unverified.
    public static func claims(_ jwt: String?) -> [String: JSONValue] {
        let parts = (jwt ?? "").split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
              case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return [:] }
        return members
    }
}

extension PasswordSignInOutcome {
    /// The finished sign-in, when the password led straight to the client.
    public var completion: SignInCompletion? {
        if case .finished(.signedIn(let completion)) = self { return completion }
        return nil
    }

    /// The second-step page the sign-in goes on to (docs/mfa.md).
    public var secondStepPage: String? {
        if case .finished(.secondStep(let page)) = self { return page }
        return nil
    }
}
