import Foundation
import IdentityCore
import StoreContracts

extension TokenExchangeGrant {
    /// The upstream token for a data link's back end (docs/token-exchange.md): what the gateway
    /// would forward to `dataLink` for this access token — refreshed first when its TTL ran out,
    /// one refresh for every caller at once, as the gateway does — as the exchange's
    /// `access_token`. The data link's own rules hold: its `authServices` and `requireMfa`.
    func upstreamToken(_ subjectToken: String, dataLink name: String, parameters: OAuthParameters,
                       client: ResolvedClient) async throws -> TokenResponse {
        let subject: VerifiedAccessToken
        let upstream: UpstreamToken?
        do {
            (subject, upstream) = try await validation.verifyAndRefresh(subjectToken)
        } catch let error as OAuthError where error.code == .invalidToken {
            throw OAuthError.invalidRequest("The subject_token is not a valid access token.")
        }
        guard subject.client.appKey == client.appKey else {
            throw OAuthError.invalidRequest("The subject_token belongs to another environment.")
        }
        guard let link = client.environment.dataLinks.first(where: { $0.name == name }) else {
            throw OAuthError.invalidRequest("There is no data link named '\(name.prefix(64))'.")
        }
        if let allowed = link.authServices, !allowed.contains(subject.client.service.id) {
            throw OAuthError.invalidRequest("The data link '\(name.prefix(64))' does not accept this auth service's sign-ins.")
        }
        if link.requireMfa && !subject.session.usedSecondFactor {
            throw OAuthError(.insufficientUserAuthentication, "The data link '\(name.prefix(64))' needs a sign-in with a second factor: "
                + "sign in again with acr_values=\(AuthenticationContext.secondFactor).", status: 400)
        }
        guard let upstream else {
            throw OAuthError.invalidRequest("This sign-in has no upstream token (its identity source issues none).")
        }
        let type = Self.upstreamType(of: subject.client)
        if let requested = parameters["requested_token_type"], requested != type {
            throw OAuthError.invalidRequest("This sign-in's upstream token is of type \(type).")
        }
        let now = context.clock.now()
        let expiresIn = upstream.expiresAt.map { max(0, Int($0.timeIntervalSince(now))) } ?? client.service.tokenTtl
        context.audit.record(AuditEvent(.tokenExchanged, [
            "client": client.clientId, "subject_client": subject.client.clientId, "subject": subject.session.subject,
            "session": subject.session.id, "kind": "upstream", "audience": name,
        ]))
        return TokenResponse(access_token: upstream.token, token_type: type == TokenType.saml2 ? "N_A" : "Bearer",
                             expires_in: expiresIn, refresh_token: nil, id_token: nil, scope: subject.scope, css: nil,
                             issued_token_type: type)
    }

    /// The RFC 8693 type of an auth service's upstream token: a SAML assertion for the SAML
    /// connectors, an access token for the others (OAuth 2.0 and OIDC providers, AuthLink).
    static func upstreamType(of client: ResolvedClient) -> String {
        client.service.provider.type.hasPrefix("saml") ? TokenType.saml2 : TokenType.accessToken
    }
}
