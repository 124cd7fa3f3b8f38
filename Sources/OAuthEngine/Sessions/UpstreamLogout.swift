import Foundation
import IdentityCore
import StoreContracts

/// Where a sign-out goes after the broker's own sessions ended (`/oauth/logout`, `/saml/slo`).
public enum SingleLogoutOutcome: Sendable, Equatable {
    /// Back to the app: its registered `post_logout_redirect_uri` with `state`.
    case redirect(String)
    /// On to the identity source (a LogoutRequest, or the answer to the IdP's own request).
    case upstream(RedirectAction)
    /// Show the "signed out" page.
    case signedOut
}

/// What a session's identity-source logout needs, read before the session ends (ending it
/// drops the sealed upstream token that carries the NameID details and SessionIndex).
struct PreparedUpstreamLogout: Sendable {
    let clientId: String
    let connector: any SingleLogoutConnector
    let userId: String
    let upstream: UpstreamToken?
}

/// The broker's sign-out passed on to the identity source (SAML SP-initiated single logout,
/// docs/connectors/saml.md, "Single logout"): the LogoutRequest goes out with a fresh RelayState
/// that names a sealed, single-use record of where the sign-out returns to; the IdP's
/// LogoutResponse at `/saml/slo` takes it.
struct UpstreamLogout: Sendable {
    let context: EngineContext
    let grantStore: any OneTimeGrantStore
    let vault: UpstreamVault

    /// How long the identity source has to answer.
    static let lifetime: TimeInterval = 600

    /// Sealed under the RelayState's hash between the LogoutRequest and its answer.
    private struct Pending: Codable {
        var clientId: String
        var savedState: Data
        var postLogoutRedirect: String?
    }

    /// The logout details of `session` when its auth service takes part in single logout.
    func prepare(_ session: LoginSession) -> PreparedUpstreamLogout? {
        guard let client = context.state.directory.resolve(session.authServiceClient),
              let connector = client.authService.connector as? any SingleLogoutConnector else { return nil }
        // An upstream token that no longer opens (vault key removed) still leaves the NameID.
        let upstream = try? vault.open(of: session)
        return PreparedUpstreamLogout(clientId: client.clientId, connector: connector, userId: session.userId, upstream: upstream)
    }

    /// Starts the identity source's logout; nil when it has none, or it could not be started (the
    /// broker's own sign-out has happened already and stands).
    func begin(_ prepared: PreparedUpstreamLogout, postLogoutRedirect: String?) async -> RedirectAction? {
        let relayState = Secrets.randomToken()
        let hash = Secrets.hash("slo:" + relayState)
        do {
            guard let start = try await prepared.connector.beginLogout(
                UpstreamLogoutRequest(userId: prepared.userId, upstream: prepared.upstream, relayState: relayState)) else { return nil }
            let pending = Pending(clientId: prepared.clientId, savedState: start.savedState, postLogoutRedirect: postLogoutRedirect)
            let sealed = try context.vault.seal(try JSONEncoder.sortedCompact.encode(pending), VaultBindings.upstreamLogout(hash: hash))
            try await grantStore.insertOneTimeGrant(hash: hash, sealed: sealed, expiresAt: context.clock.now().addingTimeInterval(Self.lifetime))
            return start.action
        } catch {
            context.logger.warning("could not start the identity provider's logout; signed out of the broker only",
                                   metadata: ["client": "\(prepared.clientId)", "error": "\(ConnectorErrors.oauthError(for: error).debug ?? "\(error)")"])
            return nil
        }
    }

    /// The identity source's answer (a SAML LogoutResponse) to a request `begin` sent.
    func finish(_ message: LogoutMessage) async throws -> SingleLogoutOutcome {
        guard let relayState = message.parameters["RelayState"], !relayState.isEmpty, relayState.utf8.count <= 128 else {
            throw OAuthError.invalidRequest("The logout response carries no RelayState of this service.")
        }
        let hash = Secrets.hash("slo:" + relayState)
        guard let taken = try await grantStore.takeOneTimeGrant(hash: hash),
              context.clock.now() < taken.expiresAt else {
            throw OAuthError.invalidRequest("Unknown or expired sign-out; you are signed out of this service.")
        }
        let pending: Pending
        do {
            pending = try JSONDecoder().decode(Pending.self, from: try context.vault.open(taken.sealed, VaultBindings.upstreamLogout(hash: hash)))
        } catch {
            throw OAuthError.wrapping(error, "logout state")
        }
        guard let connector = context.state.directory.resolve(pending.clientId)?.authService.connector as? any SingleLogoutConnector else {
            throw OAuthError.invalidRequest("This sign-out's auth service is no longer configured; you are signed out of this service.")
        }
        let result: UpstreamLogoutResult
        do {
            result = try await connector.finishLogout(message, savedState: pending.savedState)
        } catch {
            throw ConnectorErrors.oauthError(for: error)
        }
        switch result {
        case .completed:
            break
        case .incomplete(let reason):
            context.logger.notice("the identity provider did not end every session", metadata: ["client": "\(pending.clientId)", "reason": "\(reason)"])
        case .refused(let reason):
            context.logger.notice("identity provider logout response refused", metadata: ["client": "\(pending.clientId)", "reason": "\(reason)"])
            throw OAuthError.invalidRequest("\(reason) You are signed out of this service.")
        }
        return pending.postLogoutRedirect.map { .redirect($0) } ?? .signedOut
    }
}
