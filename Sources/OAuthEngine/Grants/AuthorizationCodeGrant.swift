import Foundation
import IdentityCore
import IdentityStore

extension BrokerEngine {
    /// `grant_type=authorization_code`: single-use codes, exact redirect URI, PKCE S256, and a
    /// replay that revokes what the code issued (RFC 6749 §4.1.3, §10.5; RFC 7636).
    func authorizationCodeGrant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient,
                                state: EngineState) async throws -> TokenResponse {
        let codeValue = try parameters.require("code")
        let redirectURI = try parameters.require("redirect_uri")
        let client = authenticated.client
        let now = clock.now()
        let familyId = Secrets.randomToken(bytes: 24)
        let redemption = try await guarded("redeem code") {
            try await store.redeemCode(hash: Secrets.hash(codeValue), at: now, familyId: familyId)
        }
        let code: AuthorizationCode
        switch redemption {
        case .notFound:
            throw OAuthError.invalidGrant("The authorization code is invalid.")
        case .alreadyUsed(let used, let issuedFamily):
            if let issuedFamily {
                try await revokeFamily(issuedFamily, sessionId: used.sessionId, at: now)
            } else {
                _ = try await guarded("revoke replayed code") { try await appRevocation.endSessionIfUnused(used.sessionId, at: now) }
            }
            logger.warning("authorization code replayed; its tokens were revoked", metadata: ["client": "\(client.clientId)"])
            throw OAuthError.invalidGrant("The authorization code was already used.")
        case .redeemed(let redeemed):
            code = redeemed
        }
        guard let codeClient = try await resolveClient(code.clientId, state: state), codeClient.isSameClient(as: client) else {
            throw OAuthError.invalidGrant("The authorization code was issued to another client.")
        }
        guard now < code.expiresAt else { throw OAuthError.invalidGrant("The authorization code has expired.") }
        guard redirectURI == code.redirectURI else {
            throw OAuthError.invalidGrant("redirect_uri does not match the authorization request.")
        }
        if let challenge = code.codeChallenge {
            guard let verifier = parameters["code_verifier"] else {
                throw OAuthError.invalidGrant("code_verifier is required for this code.")
            }
            guard PKCE.verify(verifier: verifier, challenge: challenge) else {
                throw OAuthError.invalidGrant("code_verifier does not match the code_challenge.")
            }
        } else if !authenticated.authenticated {
            throw OAuthError.invalidClient("This code was issued without PKCE: client authentication is required.")
        }
        return try await guarded("issue tokens for code") {
            guard let session = try await store.session(id: code.sessionId), session.isActive(at: now) else {
                throw OAuthError.invalidGrant("The sign-in session has ended.")
            }
            return try await issueNewFamily(session: session, client: client, scope: code.scope, nonce: code.nonce,
                                            familyId: familyId, keys: state.keys)
        }
    }
}
