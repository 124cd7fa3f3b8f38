import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// The token types of RFC 8693 §3 the broker reads and issues.
enum TokenType {
    static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    static let saml2 = "urn:ietf:params:oauth:token-type:saml2"
}

/// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693, docs/token-exchange.md),
/// for clients whose auth service allows it (`tokenExchange`), with their secret:
///
/// - **Another API, less scope**: a broker access token of the same environment comes back as one
///   aimed at an API of `tokenExchange.audiences` (`resource` or `audience`), with at most the
///   scope it had; an `actor_token` of a client in `tokenExchange.actors` puts `act` in it.
/// - **The upstream token for a data link's back end**: `audience=<data link>` of
///   `tokenExchange.dataLinks` answers the user's upstream token, brought up to date first
///   (``TokenExchangeGrant/upstreamToken``).
/// - **The identity source's own token in, the broker's out** (`tokenExchange.upstreamTokens`):
///   ``TokenExchangeGrant/fromUpstream``.
///
/// Every exchange is audited (`token.exchanged`).
struct TokenExchangeGrant: TokenGrant {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    let context: EngineContext
    let verifier: TokenVerifier
    let validation: ValidationEndpoint
    let families: any TokenFamilyStore
    let sessions: any SessionStore
    let issuer: TokenIssuer
    let secondFactors: SecondFactors
    let rateLimiter: RateLimiter
    let refresher: UpstreamRefresher

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        let client = authenticated.client
        if parameters["actor_token_type"] == NativeSSO.deviceSecretType {
            guard parameters["subject_token_type"] == TokenType.idToken else {
                throw OAuthError.invalidRequest("A device secret goes with an ID token (subject_token_type \(TokenType.idToken)).")
            }
            return try await nativeSSO(try parameters.require("subject_token"), deviceSecret: try parameters.require("actor_token"),
                                       parameters: parameters, client: authenticated, keys: keys)
        }
        guard let settings = client.service.tokenExchange, client.instance == nil else {
            throw OAuthError.unauthorizedClient("This client may not exchange tokens (its auth service has no tokenExchange).")
        }
        let subjectToken = try parameters.require("subject_token")
        switch try parameters.require("subject_token_type") {
        case TokenType.idToken:
            return try await fromUpstream(subjectToken, isIDToken: true, parameters: parameters, client: authenticated, keys: keys,
                                          clientAddress: clientAddress)
        case TokenType.accessToken:
            if settings.upstreamTokens, !Self.namesUs(subjectToken, issuer: context.issuer),
               (try? await verifier.verifyAccessToken(subjectToken, presented: .inspection)) == nil {
                return try await fromUpstream(subjectToken, isIDToken: false, parameters: parameters, client: authenticated, keys: keys,
                                              clientAddress: clientAddress)
            }
        default:
            throw OAuthError.invalidRequest("subject_token_type must be \(TokenType.accessToken) or \(TokenType.idToken).")
        }
        guard authenticated.authenticated else { throw OAuthError.invalidClient("Exchanging a broker token requires the client's secret.") }
        if let audience = parameters["audience"], client.environment.dataLinks.contains(where: { $0.name == audience }) {
            guard settings.dataLinks.contains(audience) else {
                throw OAuthError.unauthorizedClient("This client may not receive upstream tokens for the data link '\(audience.prefix(64))'.")
            }
            return try await upstreamToken(subjectToken, dataLink: audience, parameters: parameters, client: authenticated)
        }
        return try await brokerToken(subjectToken, parameters: parameters, settings: settings, client: authenticated, keys: keys)
    }

    /// Another API, less scope: a new token family for the requesting client in the subject
    /// token's session (it ends with that session), no refresh token and no ID token.
    private func brokerToken(_ subjectToken: String, parameters: OAuthParameters, settings: TokenExchangeSettings,
                             client authenticated: AuthenticatedClient, keys: SigningKeyRing) async throws -> TokenResponse {
        let client = authenticated.client
        if let requested = parameters["requested_token_type"], requested != TokenType.accessToken {
            throw OAuthError.invalidRequest("requested_token_type must be \(TokenType.accessToken) here.")
        }
        let subject = try await verifiedSubject(subjectToken, of: authenticated)
        let scope = try Self.narrowed(subject.scope, to: parameters["scope"], allowed: Scopes.supported + Scopes.extra(for: client))
        let wanted = parameters.resources + (parameters["audience"].map { [$0] } ?? [])
        for target in wanted where !settings.audiences.contains(target) {
            throw OAuthError(.invalidTarget, "This client may not exchange tokens for \(target.prefix(200)).")
        }
        let targets = try client.apiResources.targets(wanted, granted: scope)
        let act = try await actor(parameters, settings: settings, client: authenticated, prior: subject.act)
        let family = TokenFamily(id: Secrets.randomToken(bytes: 24), sessionId: subject.session.id, clientId: client.clientId,
                                 scope: scope, nonce: nil, createdAt: context.clock.now(), refreshHash: nil, refreshExpiresAt: nil,
                                 clientAuthenticated: true, resources: targets, dpopJkt: authenticated.dpopJkt)
        try await families.insertFamily(family)
        // Never longer than the token brought: an exchange cannot stretch access.
        var response = try await issuer.mint(session: subject.session, family: family, client: client, refreshToken: nil,
                                             includeIDToken: false, includeNonce: false, act: act, notAfter: subject.expiresAt, keys: keys)
        response.issued_token_type = TokenType.accessToken
        context.audit.record(AuditEvent(.tokenExchanged, [
            "client": client.clientId, "subject_client": subject.client.clientId, "subject": subject.session.subject,
            "session": subject.session.id, "kind": "access_token", "audience": targets?.joined(separator: " "),
            "actor": parameters["actor_token"] == nil ? nil
                : act.flatMap { if case .object(let members) = $0 { members["client_id"]?.stringValue } else { nil } },
        ]))
        return response
    }

    /// The subject token, a live broker access token of the requesting client's environment
    /// (its upstream sign-in brought up to date). Anything else is `invalid_request` (RFC 8693 §2.2.2).
    /// A DPoP-bound subject token needs this request's proof to be of its key (docs/dpop.md).
    func verifiedSubject(_ token: String, of authenticated: AuthenticatedClient) async throws -> VerifiedAccessToken {
        let client = authenticated.client
        let subject: VerifiedAccessToken
        do {
            subject = try await validation.verifyAndRefreshSession(token, presented: .keyProven(authenticated.dpopJkt))
        } catch let error as OAuthError where error.code == .invalidToken {
            throw OAuthError.invalidRequest("The subject_token is not a valid access token.")
        }
        guard subject.client.appKey == client.appKey else {
            throw OAuthError.invalidRequest("The subject_token belongs to another environment.")
        }
        return subject
    }

    /// The scope of the new token: what was asked for, all of it within what the subject token
    /// had and what the exchanging client may hold (`allowed`; `invalid_scope` otherwise); without
    /// `scope`, the subject token's that the client may hold, less `offline_access`.
    static func narrowed(_ had: String, to requested: String?, allowed: [String]) throws -> String {
        guard let requested else {
            let kept = had.split(separator: " ").map(String.init).filter { $0 != "offline_access" && allowed.contains($0) }
            guard !kept.isEmpty else { throw OAuthError.invalidScope("The subject_token has no scope this client may hold.") }
            return kept.joined(separator: " ")
        }
        var kept: [String] = []
        for value in requested.split(separator: " ").map(String.init) where !kept.contains(value) {
            guard Scopes.contains(had, value), value != "offline_access" else {
                throw OAuthError.invalidScope("The scope \(value.prefix(64)) is more than the subject_token has.")
            }
            guard allowed.contains(value) else { throw OAuthError.invalidScope("The scope \(value.prefix(64)) is not available to this client.") }
            kept.append(value)
        }
        guard !kept.isEmpty else { throw OAuthError.invalidScope("scope is empty.") }
        return kept.joined(separator: " ")
    }

    /// True for a JWT whose (unverified) `iss` is ours: one of the broker's tokens, never sent to
    /// an identity source as if it were its own.
    static func namesUs(_ token: String, issuer: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              case .object(let claims)? = JSONValue(parsing: Data(payload)) else { return false }
        return claims["iss"]?.stringValue == issuer
    }

    /// `act` of the new token (RFC 8693 §4.1): the actor token's user and client, with the subject
    /// token's own `act` — the earlier actors of the chain — nested; without `actor_token`, the
    /// subject token's `act` as it was. The actor's client must be one of `tokenExchange.actors`.
    private func actor(_ parameters: OAuthParameters, settings: TokenExchangeSettings, client authenticated: AuthenticatedClient,
                       prior: JSONValue?) async throws -> JSONValue? {
        let client = authenticated.client
        guard let token = parameters["actor_token"] else {
            if parameters["actor_token_type"] != nil { throw OAuthError.invalidRequest("actor_token_type without actor_token.") }
            return prior
        }
        guard parameters["actor_token_type"] == TokenType.accessToken else {
            throw OAuthError.invalidRequest("actor_token_type must be \(TokenType.accessToken).")
        }
        let actor: VerifiedAccessToken
        do {
            actor = try await verifier.verifyAccessToken(token, presented: .keyProven(authenticated.dpopJkt))
        } catch let error as OAuthError where error.code == .invalidGrant {
            throw error
        } catch {
            throw OAuthError.invalidRequest("The actor_token is not a valid access token.")
        }
        let allowed = settings.actors.compactMap { context.state.directory.resolve($0) }
        guard actor.client.appKey == client.appKey, allowed.contains(where: { $0.isSameClient(as: actor.client) }) else {
            throw OAuthError.invalidRequest("The actor_token's client may not act here (tokenExchange.actors).")
        }
        var members: [String: JSONValue] = ["sub": .string(actor.session.subject), "client_id": .string(actor.family.clientId)]
        members["act"] = prior
        return .object(members)
    }
}
