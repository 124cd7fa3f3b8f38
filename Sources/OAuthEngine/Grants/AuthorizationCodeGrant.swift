import Foundation
import IdentityCore
import JOSE
import Logging
import StoreContracts

/// `grant_type=authorization_code`: single-use codes, exact redirect URI, PKCE S256, and a
/// replay that revokes what the code issued (RFC 6749 §4.1.3, §10.5; RFC 7636).
///
/// Every check runs before the code is consumed (docs/security.md, rule 2): a wrong verifier,
/// client or redirect URI leaves the code usable by its rightful holder. A code presented again
/// after its redemption, by a caller who passes those checks, is a replay and revokes the family
/// its first use created; one who fails them learns nothing and changes nothing.
struct AuthorizationCodeGrant: TokenGrant {
    static let grantType = "authorization_code"
    let codes: any AuthorizationCodeStore
    let clients: ClientRegistry
    let refresher: UpstreamRefresher
    let issuer: TokenIssuer
    let revocation: Revocation
    let clock: any BrokerClock
    let logger: Logger
    /// The redirect URIs of the broker's own sign-ins (the account page's, docs/account.md; the
    /// device page's, docs/device-grant.md): their codes are redeemed there alone, never here.
    let ownCallbacks: Set<String>

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        let codeValue = try parameters.require("code")
        let redirectURI = try parameters.require("redirect_uri")
        let now = clock.now()
        let hash = Secrets.hash(codeValue)
        guard codeValue.utf8.count <= 256, let code = try await codes.code(hash: hash) else {
            throw OAuthError.invalidGrant("The authorization code is invalid.")
        }
        try await check(code, parameters: parameters, redirectURI: redirectURI, client: authenticated, now: now)
        // RFC 8707 §2.2: the token request may narrow the authorization's targets, never widen them.
        let targets = try authenticated.client.apiResources.targets(parameters.resources, granted: code.scope, within: code.resources)
        let session = try await refresher.liveSession(code.sessionId, client: authenticated.client, now: now)
        let familyId = Secrets.randomToken(bytes: 24)
        let resources = targets ?? code.resources
        // An app instance is bound to its user before its family is stored (`issueNewFamily`);
        // any other client's family is stored with the code's redemption, in one write.
        let first = authenticated.client.instance != nil ? nil : issuer.makeFamily(
            session: session, client: authenticated, scope: code.scope, nonce: code.nonce, familyId: familyId,
            resources: resources, claims: code.claims, online: code.online ?? false)
        let redemption = if let first {
            try await codes.redeemCode(hash: hash, at: now, starting: first.family)
        } else {
            try await codes.redeemCode(hash: hash, at: now, familyId: familyId)
        }
        switch redemption {
        case .notFound:
            throw OAuthError.invalidGrant("The authorization code is invalid.")
        case .alreadyUsed(let used, let issuedFamily):
            try await revocation.revokeReplayedCode(used, issuedFamily: issuedFamily, at: now)
            logger.warning("authorization code replayed; its tokens were revoked", metadata: ["client": "\(authenticated.client.clientId)"])
            throw OAuthError.invalidGrant("The authorization code was already used.")
        case .redeemed:
            if let first { return try await issuer.mintFirst(first, session: session, client: authenticated.client, keys: keys) }
            return try await issuer.issueNewFamily(session: session, client: authenticated, scope: code.scope, nonce: code.nonce,
                                                   familyId: familyId, resources: resources, claims: code.claims,
                                                   online: code.online ?? false, keys: keys)
        }
    }

    /// The checks a code must pass before it is consumed: issued to this client, unexpired, the
    /// same redirect URI, and PKCE (or, for a code issued without a challenge, client authentication).
    private func check(_ code: AuthorizationCode, parameters: OAuthParameters, redirectURI: String,
                       client authenticated: AuthenticatedClient, now: Date) async throws {
        guard let codeClient = try await clients.resolve(code.clientId), codeClient.isSameClient(as: authenticated.client) else {
            throw OAuthError.invalidGrant("The authorization code was issued to another client.")
        }
        guard now < code.expiresAt else { throw OAuthError.invalidGrant("The authorization code has expired.") }
        guard RedirectURL.same(redirectURI, code.redirectURI) else {
            throw OAuthError.invalidGrant("redirect_uri does not match the authorization request.")
        }
        guard !ownCallbacks.contains(code.redirectURI) else {
            throw OAuthError.invalidGrant("This code belongs to one of the broker's own sign-ins.")
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
        // RFC 9449 §10: a code asked for with `dpop_jkt` (or pushed with a proof) needs a proof of that key.
        if let bound = code.dpopJkt, authenticated.dpopJkt != bound {
            throw DPoPGate.invalidProof("This code is bound to a DPoP key: send a DPoP proof of that key.", resource: false)
        }
    }
}
