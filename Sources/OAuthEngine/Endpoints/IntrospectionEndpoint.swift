import Foundation
import IdentityCore
import StoreContracts

/// `POST /oauth/introspect` (RFC 7662). The caller authenticates as a client; tokens of other
/// environments, and anything not live, are `{"active": false}`. An access token's upstream
/// sign-in is brought up to date first (docs/protocol.md, "Sessions and upstream tokens").
/// Answers list their members in RFC 7662's order.
public struct IntrospectionEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore
    let clients: ClientRegistry
    let validation: ValidationEndpoint

    public func introspect(_ parameters: OAuthParameters, basic: BasicCredentials?) async throws -> JSONMembers {
        let caller = try await clients.authenticate(parameters, basic: basic, in: context.state)
        guard caller.authenticated else { throw OAuthError.invalidClient("Introspection requires client authentication.") }
        let token = try parameters.require("token")
        let hint = parameters["token_type_hint"]
        if hint != "refresh_token", let access = try await introspectAccess(token, caller: caller) { return access }
        if let refresh = try await introspectRefresh(token, caller: caller) { return refresh }
        if hint == "refresh_token", let access = try await introspectAccess(token, caller: caller) { return access }
        return ["active": .bool(false)]
    }

    private func introspectAccess(_ token: String, caller: AuthenticatedClient) async throws -> JSONMembers? {
        let verified: VerifiedAccessToken
        do {
            verified = try await validation.verifyAndRefreshSession(token, presented: .inspection)
        } catch let error as OAuthError where error.code == .invalidToken {
            return nil
        }
        guard verified.client.appKey == caller.client.appKey else { return nil }
        var answer: JSONMembers = [
            "active": .bool(true), "scope": .string(verified.scope), "client_id": .string(verified.family.clientId),
            "username": .string(verified.session.userId), "token_type": .string(verified.family.dpopJkt == nil ? "Bearer" : "DPoP"),
            "exp": .int(verified.expiresAt.epochSeconds), "iat": .int(verified.issuedAt.epochSeconds),
            "sub": .string(verified.session.subject), "aud": Audience(verified.audiences).json, "iss": .string(context.issuer),
            "jti": .string(verified.jti),
        ]
        if let act = verified.act { answer.append("act", act) }
        // RFC 9449 §6.2: the key a DPoP-bound token is bound to.
        if let jkt = verified.family.dpopJkt { answer.append("cnf", .object(["jkt": .string(jkt)])) }
        return answer
    }

    private func introspectRefresh(_ token: String, caller: AuthenticatedClient) async throws -> JSONMembers? {
        guard token.utf8.count <= 256,
              let (family, match) = try await familyStore.family(refreshHash: Secrets.hash(token)),
              match == .current, family.revokedAt == nil, let expiry = family.refreshExpiresAt, context.clock.now() < expiry,
              let client = try await clients.resolve(family.clientId), client.appKey == caller.client.appKey,
              let session = try await sessionStore.session(id: family.sessionId),
              session.isActive(at: context.clock.now()) else { return nil }
        var answer: JSONMembers = [
            "active": .bool(true), "scope": .string(family.scope), "client_id": .string(family.clientId),
            "username": .string(session.userId), "token_type": .string("refresh_token"), "exp": .int(expiry.epochSeconds),
            "sub": .string(session.subject), "iss": .string(context.issuer),
        ]
        if let jkt = family.dpopJkt { answer.append("cnf", .object(["jkt": .string(jkt)])) }
        return answer
    }
}
