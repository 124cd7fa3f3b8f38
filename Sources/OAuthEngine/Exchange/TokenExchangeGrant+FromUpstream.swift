import Foundation
import IdentityCore
import JOSE
import StoreContracts

extension TokenExchangeGrant {
    /// An app that holds a token of the auth service's own identity source (an OpenID provider's
    /// access token or ID token, `tokenExchange.upstreamTokens`) gets the broker's tokens for the
    /// same user, as if it had signed in here: the source vouches for the token (its userinfo
    /// endpoint for an access token, its keys, issuer and `upstreamAudiences` for an ID token), a
    /// session starts with the access token sealed as its upstream token, and a second factor is
    /// asked for as on the password grant (`otp`). No client secret needed: the token is the proof.
    func fromUpstream(_ token: String, isIDToken: Bool, parameters: OAuthParameters, client authenticated: AuthenticatedClient,
                      keys: SigningKeyRing, clientAddress: String?) async throws -> TokenResponse {
        let client = authenticated.client
        let settings = client.service.tokenExchange
        guard settings?.upstreamTokens == true, let connector = client.authService.connector as? any TokenExchangingConnector else {
            throw OAuthError.invalidRequest("This auth service does not take its identity source's tokens (tokenExchange.upstreamTokens).")
        }
        if let requested = parameters["requested_token_type"], requested != TokenType.accessToken {
            throw OAuthError.invalidRequest("requested_token_type must be \(TokenType.accessToken) here.")
        }
        let scope = Scopes.grant(parameters["scope"], extra: Scopes.extra(for: client))
        try client.apiResources.checkRequested(parameters["scope"])
        let targets = try client.apiResources.targets(parameters.resources, granted: scope)
        // Each attempt costs a call to the identity source: limited per address like a sign-in's start.
        try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        let identity: ConnectorIdentity
        do {
            guard let found = try await connector.identity(exchanging: token, isIDToken: isIDToken,
                                                           audiences: settings?.upstreamAudiences ?? []) else {
                context.audit.signInFailed(client: client, address: clientAddress, user: nil, reason: "rejected", detail: "token exchange")
                throw OAuthError.invalidRequest("The identity source did not accept the subject_token.")
            }
            identity = found
        } catch let failure as ConnectorFailure {
            throw failure.oauthError
        }
        let need = try await secondFactors.need(SecondFactors.owner(userId: identity.userId, client: client), client: client, amr: [])
        let amr = try await secondFactors.checkAPI(need, client: client, amr: [], otp: parameters["otp"], address: clientAddress)
        var session = try issuer.makeSession(identity: identity, client: client, amr: amr)
        if identity.upstream?.expiresAt == nil {
            // Nothing tells when the source's own sign-in ends, and nothing can re-check it: the
            // session lasts what one without a refreshing source does (as SAML's, static users').
            let end = context.clock.now().addingTimeInterval(TimeInterval(max(client.service.refreshTtl, client.service.tokenTtl)))
            session.maxExpiresAt = min(session.maxExpiresAt ?? end, end)
            session.expiresAt = min(session.expiresAt, end)
        }
        let first = issuer.makeFamily(session: session, client: authenticated, scope: scope, nonce: nil,
                                      familyId: Secrets.randomToken(bytes: 24), resources: targets, claims: nil, online: false)
        try await sessions.startSession(session, family: first.family, throttleReset: nil)
        context.audit.signedIn(session, client: client, address: clientAddress)
        var response = try await issuer.mintFirst(first, session: session, client: client, keys: keys)
        response.issued_token_type = TokenType.accessToken
        context.audit.record(AuditEvent(.tokenExchanged, [
            "client": client.clientId, "subject": session.subject, "session": session.id,
            "kind": isIDToken ? "upstream_id_token" : "upstream_access_token",
        ]))
        return response
    }
}
