import Foundation
import IdentityCore
import StoreContracts

extension BrokerEngine {
    /// `POST /oauth/introspect` (RFC 7662). The caller authenticates as a client; tokens of other
    /// environments, and anything not live, are `{"active": false}`.
    public func introspect(_ parameters: OAuthParameters, basic: BasicCredentials?) async throws -> [String: JSONValue] {
        let caller = try await authenticateClient(parameters, basic: basic, state: state)
        guard caller.authenticated else { throw OAuthError.invalidClient("Introspection requires client authentication.") }
        let token = try parameters.require("token")
        let inactive: [String: JSONValue] = ["active": .bool(false)]
        let hint = parameters["token_type_hint"]
        if hint != "refresh_token", let access = try await introspectAccess(token, caller: caller) { return access }
        if let refresh = try await introspectRefresh(token, caller: caller) { return refresh }
        if hint == "refresh_token", let access = try await introspectAccess(token, caller: caller) { return access }
        return inactive
    }

    private func introspectAccess(_ token: String, caller: AuthenticatedClient) async throws -> [String: JSONValue]? {
        let verified: VerifiedAccessToken
        do {
            verified = try await verifyAndRefresh(token).0
        } catch let error as OAuthError where error.code == .invalidToken {
            return nil
        }
        guard verified.client.appKey == caller.client.appKey else { return nil }
        return [
            "active": .bool(true), "token_type": .string("Bearer"), "scope": .string(verified.scope),
            "client_id": .string(verified.family.clientId), "username": .string(verified.session.userId),
            "sub": .string(verified.session.subject), "aud": .string(verified.family.clientId), "iss": .string(issuer),
            "exp": .int(verified.expiresAt.epochSeconds), "iat": .int(verified.issuedAt.epochSeconds),
            "jti": .string(verified.jti),
        ]
    }

    private func introspectRefresh(_ token: String, caller: AuthenticatedClient) async throws -> [String: JSONValue]? {
        guard token.utf8.count <= 256,
              let (family, match) = try await guarded("refresh lookup", { try await store.family(refreshHash: Secrets.hash(token)) }),
              match == .current, family.revokedAt == nil, let expiry = family.refreshExpiresAt, clock.now() < expiry,
              let client = try await resolveClient(family.clientId, state: state), client.appKey == caller.client.appKey,
              let session = try await guarded("session", { try await store.session(id: family.sessionId) }),
              session.isActive(at: clock.now()) else { return nil }
        return [
            "active": .bool(true), "token_type": .string("refresh_token"), "scope": .string(family.scope),
            "client_id": .string(family.clientId), "username": .string(session.userId), "sub": .string(session.subject),
            "iss": .string(issuer), "exp": .int(expiry.epochSeconds),
        ]
    }

    /// `GET|POST /oauth/userinfo` (OIDC Core §5.3): claims by granted scope. The upstream sign-in
    /// is brought up to date first (SPEC §9.11): a session the identity source ended answers nothing.
    public func userInfo(accessToken: String) async throws -> [String: JSONValue] {
        let verified = try await verifyAndRefresh(accessToken).0
        guard Scopes.contains(verified.scope, "openid") else {
            throw OAuthError(.invalidToken, "The access token was not issued with the openid scope.", status: 403)
        }
        let session = verified.session
        var claims: [String: JSONValue] = ["sub": .string(session.subject)]
        if Scopes.contains(verified.scope, "email"), let email = session.attributes["email"] { claims["email"] = email }
        if Scopes.contains(verified.scope, "profile") {
            if let name = session.attributes["name"] { claims["name"] = name }
            claims["preferred_username"] = .string(session.userId)
        }
        if Scopes.contains(verified.scope, "groups"), let groups = session.attributes["groups"] { claims["groups"] = groups }
        return claims
    }
}
