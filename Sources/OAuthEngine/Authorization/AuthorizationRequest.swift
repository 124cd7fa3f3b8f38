import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// A checked authorization request (`GET /oauth/auth`, `POST /oauth/auth`),
/// docs/protocol.md, "GET /oauth/auth" and "POST /oauth/auth".
public struct AuthorizationRequest: Sendable {
    public let client: ResolvedClient
    public let redirectURI: String
    public let scope: String
    public let state: String?
    public let nonce: String?
    public let codeChallenge: String?
    public let prompt: String?
    public let loginHint: String?
    /// RFC 8707 targets: the tokens of this authorization are for these APIs only (nil: every
    /// API the granted scopes name).
    public let resources: [String]?
    /// OIDC `max_age`: an existing sign-in older than this many seconds is not reused.
    public let maxAge: Int?
    /// OIDC `claims`: claims asked for by name.
    public let claims: ClaimsRequest?
    /// `access_type=online` (Blitz): no refresh token. `offline` (or scope `offline_access`), or
    /// nothing, leaves it to the auth service's `refresh`.
    public let online: Bool
    /// The broker's issuer, named in every answer to the redirect URI (RFC 9207 `iss`).
    public let issuer: String
    /// `response_mode`: how the code or an error goes back (`query` unless the client asked).
    public var responseMode: ResponseMode = .query
    /// `acr_values` or an essential `acr` claim asked for a second factor (docs/mfa.md).
    public var stepUp: StepUp?
    /// `dpop_jkt` (RFC 9449 §10): the code may only be redeemed with a DPoP proof of this key.
    public var dpopJkt: String?
    /// The back end's permission request this authorization answers (docs/consent.md); set only
    /// from a permission's own link, never from a parameter.
    public var permissionId: String?
    /// `ui_locales` (OIDC Core 3.1.2.1): the languages the app would like the pages in, in order
    /// (at most 1000 bytes kept; docs/languages.md).
    public var uiLocales: String?

    /// Where errors go once the redirect URI is known to be registered.
    public var errorTarget: ErrorRedirect { ErrorRedirect(redirectURI: redirectURI, state: state, issuer: issuer, mode: responseMode) }
}

/// The redirect URI, state and response mode an error is reported with (RFC 6749 §4.1.2.1), and
/// the issuer that answers (RFC 9207: a client that talks to several servers learns which one it
/// was, and an attacker's server cannot pass its answer off as ours).
public struct ErrorRedirect: Sendable, Equatable {
    public let redirectURI: String
    public let state: String?
    public let issuer: String
    public let mode: ResponseMode

    public init(redirectURI: String, state: String?, issuer: String, mode: ResponseMode = .query) {
        self.redirectURI = redirectURI
        self.state = state
        self.issuer = issuer
        self.mode = mode
    }

    /// Errors of a sign-in in progress go where its authorization asked.
    public init(_ pending: PendingAuthorization, issuer: String) {
        self.init(redirectURI: pending.redirectURI, state: pending.state, issuer: issuer, mode: pending.responseMode ?? .query)
    }

    public func answer(for error: OAuthError) -> ClientAnswer {
        ClientAnswer(redirectURI: redirectURI, mode: mode, [("error", error.code.rawValue), ("error_description", error.errorDescription),
                                                            ("state", state), ("iss", issuer)])
    }
}

/// Why an authorization step failed, and whether the client's redirect URI may hear about it.
public enum AuthorizationFailure: Error, Sendable {
    /// The client or redirect URI cannot be trusted: show an error, never redirect.
    case cannotRedirect(OAuthError)
    /// Report to the registered redirect URI.
    case redirect(OAuthError, ErrorRedirect)

    public var error: OAuthError {
        switch self {
        case .cannotRedirect(let error), .redirect(let error, _): error
        }
    }
}

extension AuthorizationRequest {
    static let promptValues: Set<String> = ["none", "login", "consent", "select_account"]

    /// Checks the parameters in the order RFC 6749 §4.1.2.1 requires: client and redirect URI
    /// first (errors shown, never redirected), the rest reported to the redirect URI.
    /// `lookup` resolves the client id (configured clients and registered app instances);
    /// `issuer` is the broker's, named in every answer to the redirect URI.
    public static func parse(_ parameters: OAuthParameters, issuer: String,
                             lookup: (String) async throws -> ResolvedClient?) async throws(AuthorizationFailure) -> AuthorizationRequest {
        guard let clientId = parameters["client_id"] else {
            throw .cannotRedirect(.invalidRequest("The parameter 'client_id' is required."))
        }
        let found: ResolvedClient?
        do { found = try await lookup(clientId) } catch {
            throw .cannotRedirect(.wrapping(error, "client lookup"))
        }
        guard let client = found else {
            throw .cannotRedirect(OAuthError(.invalidClient, "Unknown client.", status: 400))
        }
        guard let redirectURI = parameters["redirect_uri"] else {
            throw .cannotRedirect(.invalidRequest("The parameter 'redirect_uri' is required."))
        }
        guard RedirectURL.isRegistered(redirectURI, in: client.redirectURIs) else {
            throw .cannotRedirect(.invalidRequest("The redirect_uri is not registered for this client."))
        }
        var target = ErrorRedirect(redirectURI: redirectURI, state: parameters["state"], issuer: issuer)
        var responseMode = ResponseMode.query
        if let mode = parameters["response_mode"] {
            // An unknown mode is reported in the default one (OAuth 2.0 Multiple Response Types §2).
            guard let known = ResponseMode(rawValue: mode) else {
                throw .redirect(.invalidRequest("response_mode must be query, fragment or form_post."), target)
            }
            responseMode = known
            target = ErrorRedirect(redirectURI: redirectURI, state: parameters["state"], issuer: issuer, mode: known)
        }
        guard let responseType = parameters["response_type"] else {
            throw .redirect(.invalidRequest("The parameter 'response_type' is required."), target)
        }
        guard responseType == "code" else {
            throw .redirect(.invalidRequest("Only response_type=code is supported."), target)
        }
        let challenge = parameters["code_challenge"]
        if let method = parameters["code_challenge_method"] {
            guard method == "S256" else {
                throw .redirect(.invalidRequest("code_challenge_method must be S256; plain is refused."), target)
            }
            guard challenge != nil else { throw .redirect(.invalidRequest("code_challenge is missing."), target) }
        }
        if let challenge {
            guard parameters["code_challenge_method"] == "S256" else {
                throw .redirect(.invalidRequest("code_challenge_method=S256 is required with a code_challenge; plain is refused."), target)
            }
            guard PKCE.isWellFormed(challenge) else {
                throw .redirect(.invalidRequest("code_challenge must be 43-128 characters of [A-Za-z0-9-._~]."), target)
            }
        }
        let prompt = parameters["prompt"]
        if let prompt {
            let values = Set(prompt.split(separator: " ").map(String.init))
            guard values.isSubset(of: promptValues), !(values.contains("none") && values.count > 1) else {
                throw .redirect(.invalidRequest("Unsupported prompt value."), target)
            }
        }
        if parameters["request"] != nil {
            throw .redirect(OAuthError(.requestNotSupported, "Request objects are taken at GET /oauth/auth and PAR only; send the parameters themselves."), target)
        }
        if parameters["request_uri"] != nil {
            throw .redirect(OAuthError(.requestURINotSupported, "Only request_uri values from the pushed authorization endpoint are supported."), target)
        }
        let dpopJkt = parameters["dpop_jkt"]
        if let dpopJkt, !JWKThumbprint.isWellFormed(dpopJkt) {
            throw .redirect(.invalidRequest("dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)."), target)
        }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let value = Int(text), value >= 0, value <= 1_000_000_000 else {
                throw .redirect(.invalidRequest("max_age must be a number of seconds."), target)
            }
            maxAge = value
        }
        var claims: ClaimsRequest?
        if let text = parameters["claims"] {
            guard let parsed = ClaimsRequest(json: text) else {
                throw .redirect(.invalidRequest("claims must be a JSON object with id_token and userinfo members (OIDC Core 5.5)."), target)
            }
            claims = parsed
        }
        let stepUp: StepUp?
        do {
            stepUp = try StepUp.asked(acrValues: parameters["acr_values"], claims: claims, mfa: client.service.mfa)
        } catch {
            throw .redirect(error, target)
        }
        let scope = Scopes.grant(parameters["scope"], within: client.instance?.scope, extra: Scopes.extra(for: client))
        let online: Bool
        switch parameters["access_type"] {
        case nil, "offline": online = false
        case "online":
            guard !Scopes.contains(scope, "offline_access") else {
                throw .redirect(.invalidRequest("access_type=online contradicts the offline_access scope."), target)
            }
            online = true
        default: throw .redirect(.invalidRequest("access_type must be online or offline."), target)
        }
        let resources: [String]?
        do {
            try client.apiResources.checkRequested(parameters["scope"])
            resources = try client.apiResources.targets(parameters.resources, granted: scope)
        } catch {
            throw .redirect(error, target)
        }
        return AuthorizationRequest(
            client: client, redirectURI: redirectURI, scope: scope,
            state: parameters["state"], nonce: parameters["nonce"], codeChallenge: challenge,
            prompt: prompt, loginHint: parameters["login_hint"], resources: resources, maxAge: maxAge, claims: claims, online: online,
            issuer: issuer, responseMode: responseMode, stepUp: stepUp, dpopJkt: dpopJkt,
            uiLocales: parameters["ui_locales"].flatMap { $0.utf8.count <= 1000 ? $0 : nil })
    }
}
