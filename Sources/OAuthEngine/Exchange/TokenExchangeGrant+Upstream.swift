import Foundation
import IdentityCore
import StoreContracts

extension TokenExchangeGrant {
    /// The upstream token for a data link's back end (docs/token-exchange.md): what the gateway
    /// would forward to `dataLink` for this access token — refreshed first when its TTL ran out,
    /// one refresh for every caller at once, as the gateway does — as the exchange's
    /// `access_token`. The data link's own rules hold: its `authServices` and `requireMfa`.
    func upstreamToken(_ subjectToken: String, dataLink name: String, parameters: OAuthParameters,
                       client authenticated: AuthenticatedClient) async throws -> TokenResponse {
        let client = authenticated.client
        let subject: VerifiedAccessToken
        let upstream: UpstreamToken?
        do {
            (subject, upstream) = try await validation.verifyAndRefresh(subjectToken, presented: .keyProven(authenticated.dpopJkt))
        } catch let error as OAuthError where error.code == .invalidToken {
            throw OAuthError.invalidRequest("The subject_token is not a valid access token.")
        }
        guard subject.client.appKey == client.appKey else {
            throw OAuthError.invalidRequest("The subject_token belongs to another environment.")
        }
        guard let link = client.environment.dataLinks.first(where: { $0.name == name }) else {
            throw OAuthError.invalidRequest("There is no data link named '\(name.prefix(64))'.")
        }
        let signedIn = try validation.signedInService(subject)
        if let allowed = link.authServices, !allowed.contains(signedIn.id) {
            throw OAuthError.invalidRequest("The data link '\(name.prefix(64))' does not accept this auth service's sign-ins.")
        }
        if link.requireMfa && !subject.session.usedSecondFactor {
            throw OAuthError(.insufficientUserAuthentication, "The data link '\(name.prefix(64))' needs a sign-in with a second factor: "
                + "sign in again with acr_values=\(AuthenticationContext.secondFactor).", status: 400)
        }
        guard let upstream, let type = Self.upstreamType(of: signedIn.provider.type) else {
            throw OAuthError.invalidRequest("This sign-in has no upstream token (its identity source issues none).")
        }
        if let requested = parameters["requested_token_type"], requested != type {
            throw OAuthError.invalidRequest("This sign-in's upstream token is of type \(type).")
        }
        let now = context.clock.now()
        let expiresIn = upstream.expiresAt.map { max(0, Int($0.timeIntervalSince(now))) } ?? client.service.tokenTtl
        context.audit.record(AuditEvent(.tokenExchanged, [
            "client": client.clientId, "subject_client": subject.client.clientId, "subject": subject.session.subject,
            "session": subject.session.id, "kind": "upstream", "audience": name,
        ]))
        // RFC 8693 §3: a SAML assertion goes out base64url-encoded.
        let value = type == TokenType.saml2 ? Base64URL.encode(Array(upstream.token.utf8)) : upstream.token
        return TokenResponse(access_token: value, token_type: type == TokenType.saml2 ? "N_A" : "Bearer",
                             expires_in: expiresIn, refresh_token: nil, id_token: nil, scope: subject.scope, css: nil,
                             issued_token_type: type)
    }

    /// The RFC 8693 type of a connector's upstream token: a SAML assertion for the SAML
    /// connectors, an access token for OAuth 2.0 and OIDC providers, AuthLink and SAML WRAP; nil
    /// for the connectors whose sign-ins hold no token to hand on (LDAP, Active Directory, static).
    static func upstreamType(of provider: String) -> String? {
        switch provider {
        case "saml-redirect", "saml-post": TokenType.saml2
        case "ldap", "active-directory", "static": nil
        default: TokenType.accessToken
        }
    }
}
