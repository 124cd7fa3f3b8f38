import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import PageLanguages
import StoreContracts

/// The OpenID Provider / OAuth AS metadata (OIDC Discovery, RFC 8414). Lists only what works.
public struct DiscoveryEndpoint: Sendable {
    let context: EngineContext
    let grantTypes: [String]
    private let cache: DocumentCache
    private let jwksCache: DocumentCache

    init(context: EngineContext, grantTypes: [String]) {
        self.context = context
        self.grantTypes = grantTypes
        cache = DocumentCache(live: context.live)
        jwksCache = DocumentCache(live: context.live)
    }

    /// The document as served: built once per configuration and key set.
    public func cached() -> CachedDocument {
        cache.document { (try? JSONEncoder.sortedCompact.encode(document())) ?? Data("{}".utf8) }
    }

    /// The JWKS as served, with its entity tag (new after a key rotation or reload).
    public func jwks() -> CachedDocument {
        jwksCache.document { context.state.keys.jwksDocument }
    }

    static let secretMethods = ["client_secret_basic", "client_secret_post"]
    /// RFC 7523 client assertions (docs/client-authentication.md).
    static let jwtMethods = ["private_key_jwt", "client_secret_jwt"]
    /// What a client assertion may be signed with: `private_key_jwt`'s algorithms, then HS256.
    static let assertionAlgorithms = JOSEAlgorithm.allCases.filter(ClientAssertion.algorithms.contains).map(\.rawValue)
        + [SharedSecretJWT.algorithm]

    /// The shipped languages, then those an environment's or auth service's branding adds.
    public static func pageLanguages(_ config: BrokerConfig) -> [String] {
        var brandings = config.environments.flatMap { environment in [environment.branding] + environment.authServices.map(\.branding) }
        brandings += config.organizations.flatMap { $0.authServices.map(\.branding) }
        let added = Set(brandings.compactMap { $0 }.flatMap(\.strings.keys)).subtracting(PageCatalog.shippedLanguages)
        return PageCatalog.shippedLanguages + added.sorted()
    }

    public func document() -> [String: JSONValue] {
        let state = context.state
        let issuer = context.issuer
        let algorithm = state.keys.active.algorithm.rawValue
        func list(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
        var document: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string("\(issuer)/oauth/auth"),
            "token_endpoint": .string("\(issuer)/oauth/token"),
            "jwks_uri": .string("\(issuer)/.well-known/jwks.json"),
            "userinfo_endpoint": .string("\(issuer)/oauth/userinfo"),
            "introspection_endpoint": .string("\(issuer)/oauth/introspect"),
            "revocation_endpoint": .string("\(issuer)/oauth/revoke"),
            "end_session_endpoint": .string("\(issuer)/oauth/logout"),
            // OpenID Connect Back-Channel Logout 1.0: relying parties with a `backchannelLogoutUri`
            // are told of ended sign-ins, with `sid` in the logout token and in ID tokens.
            "backchannel_logout_supported": .bool(true),
            "backchannel_logout_session_supported": .bool(true),
            "introspection_endpoint_auth_methods_supported": list(Self.secretMethods + Self.jwtMethods),
            "revocation_endpoint_auth_methods_supported": list(Self.secretMethods + Self.jwtMethods + ["none"]),
            "token_endpoint_auth_signing_alg_values_supported": list(Self.assertionAlgorithms),
            "introspection_endpoint_auth_signing_alg_values_supported": list(Self.assertionAlgorithms),
            "revocation_endpoint_auth_signing_alg_values_supported": list(Self.assertionAlgorithms),
            "response_types_supported": list(["code"]),
            "response_modes_supported": list(ResponseMode.allCases.map(\.rawValue)),
            "grant_types_supported": list(Self.offered(grantTypes, state)),
            "subject_types_supported": list(["public"]),
            "id_token_signing_alg_values_supported": list([algorithm]),
            "token_endpoint_auth_methods_supported": list(Self.secretMethods + Self.jwtMethods + ["none"]),
            "code_challenge_methods_supported": list(["S256"]),
            // The hosted pages' languages (docs/languages.md): shipped, then added by `branding.strings`.
            "ui_locales_supported": list(Self.pageLanguages(state.config)),
            "scopes_supported": list(Scopes.supported + (Self.services(state).contains(where: \.nativeSSO) ? [NativeSSO.scope] : [])
                + Self.declaredScopes(state)),
            "claims_supported": list(["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "sid", "acr",
                                      "email", "email_verified", "name", "preferred_username", "groups"]),
            "acr_values_supported": list([AuthenticationContext.password, AuthenticationContext.secondFactor]),
            "prompt_values_supported": list(["none", "login", "consent", "select_account"]),
            // RFC 9101 request objects, from clients that sign (docs/client-authentication.md).
            "request_parameter_supported": .bool(true),
            "request_object_signing_alg_values_supported": list(Self.assertionAlgorithms),
            "request_uri_parameter_supported": .bool(false),
            "pushed_authorization_request_endpoint": .string("\(issuer)/oauth/par"),
            "require_pushed_authorization_requests": .bool(Self.everyServiceRequiresPar(state)),
            "claims_parameter_supported": .bool(true),
            // RFC 9207: every answer to the redirect URI names the issuer (`iss`).
            "authorization_response_iss_parameter_supported": .bool(true),
            // RFC 9449 §5.1: DPoP proofs are checked wherever tokens are issued or used.
            "dpop_signing_alg_values_supported": list(DPoPProofChecker.algorithms.map(\.rawValue).sorted()),
        ]
        // RFC 8628: named once an auth service allows it (`deviceGrant`), as its grant type is.
        if Self.services(state).contains(where: { $0.deviceGrant != nil }) {
            document["device_authorization_endpoint"] = .string("\(issuer)/oauth/device_authorization")
        }
        if state.config.environments.contains(where: { $0.registration != nil }) {
            document["registration_endpoint"] = .string("\(issuer)/oauth/register")
        }
        return document
    }

    /// Every auth service of the configuration.
    static func services(_ state: EngineState) -> [AuthService] {
        state.config.environments.flatMap(\.authServices) + state.config.organizations.flatMap(\.authServices)
    }

    /// The grant types some auth service can use: the device and token-exchange grants only where
    /// one allows them (`deviceGrant`, `tokenExchange`).
    static func offered(_ grantTypes: [String], _ state: EngineState) -> [String] {
        let services = services(state)
        return grantTypes.filter { type in
            switch type {
            case DeviceCodeGrant.grantType: services.contains { $0.deviceGrant != nil }
            case TokenExchangeGrant.grantType: services.contains { $0.tokenExchange != nil || $0.nativeSSO }
            default: true
            }
        }
    }

    /// Every API scope declared anywhere, each once, in configuration order.
    static func declaredScopes(_ state: EngineState) -> [String] {
        var seen = Set(Scopes.supported)
        let declared = state.config.environments.flatMap(\.apiResources) + state.config.organizations.flatMap(\.apiResources)
        return declared.map(\.scope).filter { seen.insert($0).inserted }
    }

    /// True only when no auth service takes an authorization request that was not pushed.
    static func everyServiceRequiresPar(_ state: EngineState) -> Bool {
        let services = services(state)
        return !services.isEmpty && services.allSatisfy(\.requirePar)
    }
}
