import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// What a backend learns about a token: the `/oauth/validate` body and the data-link headers
/// (docs/protocol.md, "GET /oauth/validate" and "Data-link gateway").
public struct TokenView: Sendable {
    public var body: [String: JSONValue]
    public var dataLinkHeaders: [String: String]
}

/// The userinfo answer and the client its access token was issued to.
public struct UserInfoAnswer: Sendable {
    public let claims: [String: JSONValue]
    public let client: ResolvedClient
}

/// Where the gateway forwards a call, with the headers it adds
/// (docs/protocol.md, "Data-link gateway").
public struct DataLinkTarget: Sendable {
    public let link: DataLink
    /// `datalinkHeaderMapping` headers, e.g. `X-Kinvey-Auth: <base64 upstream token>`.
    public let headers: [String: String]
    /// Every header name any `datalinkHeaderMapping` of the environment uses, lowercased: the
    /// caller's copies are removed even when this token's mapping yields no value for one, so a
    /// backend never mistakes a forged header for the broker's (docs/security.md, rule 3).
    public let mappedHeaderNames: Set<String>
}

/// Token validation for backends and apps: `/oauth/validate` (MIC), the data-link gateway and
/// `/oauth/userinfo`. Each brings the upstream sign-in up to date first
/// (docs/protocol.md, "Sessions and upstream tokens"; docs/security.md, rule 11).
public struct ValidationEndpoint: Sendable {
    let context: EngineContext
    let verifier: TokenVerifier
    let refresher: UpstreamRefresher
    let upstream: UpstreamVault

    /// `GET /oauth/validate` (docs/protocol.md, "GET /oauth/validate"). With
    /// `validateAuth: required` the caller must also authenticate as the token's environment: Basic
    /// `appKey:appSecret` of that environment, and nothing else (docs/security.md, rule 5) — an app
    /// instance's own credentials live on a phone, and the answer carries the upstream token. The
    /// caller is checked before any upstream refresh, so an unauthenticated caller cannot make the
    /// broker call the identity source. A DPoP-bound token needs `presented` with its proof, or
    /// `.inspection` by a caller authenticated as the token's environment: a back end asking about
    /// the token its app sent, which checks the app's proof against the answer's `cnf` itself (docs/dpop.md).
    public func validate(accessToken: String, basic: BasicCredentials?, presented: TokenPresentation = .bearer) async throws -> TokenView {
        if case .inspection = presented, basic == nil {
            throw OAuthError.invalidClient("Validating a token without using it requires the environment's credentials.")
        }
        let verified = try await verifier.verifyAccessToken(accessToken, presented: presented)
        if verified.client.environment.validateAuth == .required || basic != nil {
            guard let basic else {
                throw OAuthError.invalidClient("This environment requires client authentication to validate tokens.")
            }
            let caller = try ClientAuthenticator(directory: context.state.directory).authenticate(OAuthParameters(), basic: basic)
            // A JWT-authenticated environment's secret never travels (docs/client-authentication.md).
            if let method = caller.client.environment.clientAuth?.method, method != .clientSecret {
                throw OAuthError.invalidClient("This environment authenticates with a signed client assertion (\(method.rawValue)); "
                                               + "its back ends ask POST /oauth/introspect instead.")
            }
            guard caller.authenticated, caller.client.appKey == verified.client.appKey else {
                throw OAuthError.invalidClient("The token belongs to another environment.")
            }
        }
        let (fresh, token) = try await refreshing(verified)
        // A bound token asked about without its key's proof: who it is for, never the upstream
        // token (`client_token`, the data-link headers) — that would be an unbound credential.
        var unproven = false
        if case .inspection = presented { unproven = fresh.family.dpopJkt != nil }
        var view = TokenView.make(fresh, service: try signedInService(fresh), upstream: unproven ? nil : token, now: context.clock.now())
        if unproven {
            view.body["datalink_headers"] = .object([:])
            view.dataLinkHeaders = [:]
        }
        return view
    }

    /// Verifies a token and brings its upstream token up to date (validate, introspection, the
    /// gateway). A session the source ended is `invalid_token`.
    public func verifyAndRefresh(_ token: String, presented: TokenPresentation) async throws -> (VerifiedAccessToken, UpstreamToken?) {
        try await refreshing(try await verifier.verifyAccessToken(token, presented: presented))
    }

    /// Verifies a token and brings its upstream sign-in up to date without opening the sealed
    /// upstream token (introspection and userinfo never show it, so they skip the decryption).
    public func verifyAndRefreshSession(_ token: String, presented: TokenPresentation) async throws -> VerifiedAccessToken {
        try await refreshedSession(try await verifier.verifyAccessToken(token, presented: presented))
    }

    private func refreshing(_ verified: VerifiedAccessToken) async throws -> (VerifiedAccessToken, UpstreamToken?) {
        let fresh = try await refreshedSession(verified)
        do {
            return (fresh, try upstream.open(of: fresh.session))
        } catch {
            throw OAuthError.wrapping(error, "open upstream token")
        }
    }

    private func refreshedSession(_ verified: VerifiedAccessToken) async throws -> VerifiedAccessToken {
        let session: LoginSession
        do {
            session = try await refresher.ensureFresh(verified.session, authService: verified.client.authService)
        } catch let ended as SessionEnded {
            throw OAuthError.invalidToken(ended.reason)
        }
        return VerifiedAccessToken(jti: verified.jti, scope: verified.scope, issuedAt: verified.issuedAt,
                                   expiresAt: verified.expiresAt, family: verified.family, session: session, client: verified.client,
                                   audiences: verified.audiences, act: verified.act)
    }

    /// The gateway's target (docs/protocol.md, "Data-link gateway"): 401 for a bad token, 404 for
    /// an unknown link, 403 when the link is not bound to the token's auth service.
    public func dataLinkTarget(name: String, accessToken: String, presented: TokenPresentation = .bearer) async throws -> DataLinkTarget {
        let (verified, token) = try await verifyAndRefresh(accessToken, presented: presented)
        guard let link = verified.client.environment.dataLinks.first(where: { $0.name == name }) else {
            throw OAuthError(.invalidRequest, "There is no data link named '\(name.prefix(64))' in this environment.", status: 404)
        }
        let service = try signedInService(verified)
        if let allowed = link.authServices, !allowed.contains(service.id) {
            throw OAuthError(.accessDenied, "This data link does not accept tokens of this auth service.", status: 403)
        }
        if link.requireMfa && !verified.session.usedSecondFactor {
            throw OAuthError(.insufficientUserAuthentication,
                             "This data link needs a sign-in with a second factor: sign in again with acr_values=\(AuthenticationContext.secondFactor).")
        }
        let mapped = verified.client.entry.services.values.flatMap { $0.service.provider.datalinkHeaderMapping.values }
        return DataLinkTarget(link: link, headers: TokenView.make(verified, service: service, upstream: token,
                                                                  now: context.clock.now()).dataLinkHeaders,
                              mappedHeaderNames: Set(mapped.map { $0.lowercased() }))
    }

    /// The auth service the token's user signed in through: the token's own client's, or — for a
    /// token of another client in the same sign-in (token exchange, native SSO) — the session's.
    /// `invalid_token` when that auth service is no longer configured (its rules cannot be applied).
    func signedInService(_ verified: VerifiedAccessToken) throws -> AuthService {
        let session = verified.session
        guard verified.client.service.id != session.authServiceId else { return verified.client.service }
        guard let service = context.state.directory.resolve("\(session.appKey).\(session.authServiceId)")?.service else {
            throw OAuthError.invalidToken("The auth service this sign-in belongs to is no longer configured.")
        }
        return service
    }

    /// `GET|POST /oauth/userinfo` (OIDC Core §5.3): claims by granted scope, with the client the
    /// token was issued to (whose `webOrigins` may read the answer, CORS).
    public func userInfo(accessToken: String, presented: TokenPresentation = .bearer) async throws -> UserInfoAnswer {
        let verified = try await verifyAndRefreshSession(accessToken, presented: presented)
        guard Scopes.contains(verified.scope, "openid") else {
            throw OAuthError(.invalidToken, "The access token was not issued with the openid scope.", status: 403)
        }
        var claims = UserClaims.claims(of: verified.session, scope: verified.scope, requested: verified.family.claims?.userinfo ?? [])
        claims["sub"] = .string(verified.session.subject)
        return UserInfoAnswer(claims: claims, client: verified.client)
    }
}
