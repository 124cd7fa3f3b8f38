import Foundation
import IdentityCore
import StoreContracts

/// `GET|POST /saml/slo` (docs/connectors/saml.md, "Single logout"): the identity provider's
/// answer to a logout the broker passed on, or a logout the identity provider starts.
///
/// A logout request is checked by every SAML connector (each knows its IdP's certificates and
/// the broker's SLO URL); those that accept it end the sessions of the NameID it names (only
/// those of its SessionIndex values, when it lists any) in storage, so on every instance at once,
/// and the first answers with a LogoutResponse. A request no connector accepts (unsigned, forged,
/// expired, addressed elsewhere) is refused with a page saying why, and nothing ends; a request
/// presented a second time is refused (replay).
public struct SingleLogoutEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let grantStore: any OneTimeGrantStore
    let upstreamLogout: UpstreamLogout

    public func handle(_ message: LogoutMessage) async throws -> SingleLogoutOutcome {
        if message.isRequest { return try await identitySourceLogout(message) }
        guard let response = message.parameters["SAMLResponse"], !response.isEmpty else {
            throw OAuthError.invalidRequest("The request carries neither a SAMLRequest nor a SAMLResponse.")
        }
        return try await upstreamLogout.finish(message)
    }

    private func identitySourceLogout(_ message: LogoutMessage) async throws -> SingleLogoutOutcome {
        var accepted: [(service: ResolvedAuthService, connector: any SingleLogoutConnector, logout: IdentitySourceLogout)] = []
        var refusals: [String] = []
        for service in Self.services(in: context.state.directory) {
            guard let connector = service.connector as? any SingleLogoutConnector else { continue }
            do {
                switch try await connector.verifyLogoutRequest(message) {
                case .notForThisConnector: continue
                case .refused(let reason): refusals.append(reason)
                case .accepted(let logout): accepted.append((service, connector, logout))
                }
            } catch {
                refusals.append(ConnectorErrors.oauthError(for: error).errorDescription)
            }
        }
        guard let first = accepted.first else {
            let reason = refusals.first ?? "No SAML auth service takes logout requests from this identity provider."
            context.logger.notice("SAML logout request refused", metadata: ["reason": "\(reason)"])
            throw OAuthError.invalidRequest(reason)
        }
        let once = first.logout.oneTimeUse
        guard try await grantStore.insertOneTimeGrantIfAbsent(hash: Secrets.hash("once:" + once.id), sealed: Data(), expiresAt: once.expiresAt) else {
            context.logger.notice("SAML logout request replayed", metadata: ["authService": "\(first.service.namespace)"])
            throw OAuthError.invalidRequest("This logout request was already used.")
        }
        var ended = true
        let now = context.clock.now()
        for (service, _, logout) in accepted {
            let subject = SubjectIdentifier.make(namespace: service.namespace, userId: logout.userId)
            let keys = logout.upstreamSessionIds.isEmpty ? nil : logout.upstreamSessionIds.map(Secrets.hash)
            do {
                let sessions = try await sessionStore.endSessions(subject: subject, upstreamSessionKeys: keys, at: now)
                context.audit.sessionsEnded(sessions, reason: .samlLogout)
                context.logger.info("identity provider ended sessions", metadata: [
                    "authService": "\(service.namespace)", "sessions": "\(sessions.count)"])
            } catch {
                ended = false
                context.logger.error("could not end the sessions an identity provider logged out",
                                     metadata: ["authService": "\(service.namespace)", "error": "\(error)"])
            }
        }
        do {
            return .upstream(try await first.connector.logoutReply(first.logout, ended: ended))
        } catch {
            throw ConnectorErrors.oauthError(for: error)
        }
    }

    /// Every auth service once (an organization's appears in each of its environments).
    static func services(in directory: ClientDirectory) -> [ResolvedAuthService] {
        var seen: Set<String> = []
        return directory.environments.keys.sorted().flatMap { appKey in
            (directory.environments[appKey]?.services.values.sorted { $0.id < $1.id } ?? [])
        }.filter { seen.insert($0.namespace).inserted }
    }
}
