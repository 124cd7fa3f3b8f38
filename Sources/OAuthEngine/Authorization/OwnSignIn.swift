import Foundation
import IdentityCore
import StoreContracts

/// The sign-ins the broker runs as its own client (the account page's, docs/account.md; the
/// device page's, docs/device-grant.md): an authorization built in code for a redirect URI of the
/// broker's, with PKCE whose verifier only the starting browser's sealed cookie holds. The token
/// endpoint refuses their codes; these helpers seal the cookie and redeem the code that comes back.
struct OwnSignIn: Sendable {
    let context: EngineContext
    let codeStore: any AuthorizationCodeStore
    let sessionStore: any SessionStore

    /// A flow's cookie value: `flow` sealed under `binding`, base64url.
    func seal<Flow: Encodable>(_ flow: Flow, _ binding: Vault.Binding) throws -> String {
        Base64URL.encode(Array(try context.vault.seal(try JSONEncoder.sortedCompact.encode(flow), binding)))
    }

    /// The flow a cookie value holds, when it opens under `binding` (nil for anything else).
    func open<Flow: Decodable>(_ sealed: String?, as type: Flow.Type, _ binding: Vault.Binding) -> Flow? {
        guard let sealed, sealed.utf8.count <= 2048, let bytes = Base64URL.decode(sealed),
              let data = try? context.vault.open(Data(bytes), binding) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    /// Redeems the code a callback received: issued for `redirectURI` and the flow's client,
    /// unexpired, its challenge matching the flow's `verifier`, used exactly once (under a family
    /// id starting with `purpose`). Returns its live session; anything else throws `refused`.
    func redeem(_ value: String?, redirectURI: String, verifier: String, clientId: String, purpose: String,
                refused: OAuthError) async throws -> LoginSession {
        guard let value, value.utf8.count <= 256 else { throw refused }
        let hash = Secrets.hash(value)
        let now = context.clock.now()
        let directory = context.state.directory
        guard let code = try await codeStore.code(hash: hash), code.redirectURI == redirectURI,
              now < code.expiresAt, let challenge = code.codeChallenge, PKCE.verify(verifier: verifier, challenge: challenge),
              let flowClient = directory.resolve(clientId), let codeClient = directory.resolve(code.clientId),
              codeClient.isSameClient(as: flowClient) else { throw refused }
        let redeemed = try await codeStore.redeemCode(hash: hash, at: now, familyId: purpose + "~" + Secrets.randomToken(bytes: 12))
        guard case .redeemed = redeemed,
              let session = try await sessionStore.session(id: code.sessionId), session.isActive(at: now) else {
            throw refused
        }
        return session
    }
}
