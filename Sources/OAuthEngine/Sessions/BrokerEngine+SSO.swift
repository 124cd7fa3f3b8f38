import Foundation
import IdentityCore
import StoreContracts

/// The SSO cookie to set after a browser sign-in.
public struct SSOCookie: Sendable {
    public let value: String
    public let maxAge: Int
}

extension BrokerEngine {
    /// Remembers an interactive browser sign-in (SPEC §3.1) under a **new** SSO cookie value
    /// (SPEC §9.10): the record the browser's old cookie named is replaced, never added to, so a
    /// cookie planted in the browser before the sign-in never leads to the new session. The
    /// browser's other live sign-ins move to the new record (the account chooser keeps them).
    public func rememberSignIn(_ session: LoginSession, client: ResolvedClient, ssoToken: String?) async -> SSOCookie? {
        let now = clock.now()
        do {
            var entries: [SSORecord.Entry] = []
            var previousHash: String?
            if let ssoToken, Self.isWellFormedSSO(ssoToken) {
                let hash = Secrets.hash(ssoToken)
                if let previous = try await store.ssoRecord(hash: hash), previous.expiresAt > now {
                    entries = previous.entries
                    previousHash = hash
                }
            }
            let namespace = client.authService.namespace
            entries.removeAll { $0.namespace == namespace && $0.userId == session.userId }
            entries.insert(.init(namespace: namespace, sessionId: session.id, userId: session.userId, signedInAt: now), at: 0)
            var live: [SSORecord.Entry] = []
            var expiresAt = session.expiresAt
            for entry in entries.prefix(20) {
                if entry.sessionId == session.id {
                    live.append(entry)
                } else if let other = try await store.session(id: entry.sessionId), other.isActive(at: now) {
                    live.append(entry)
                    expiresAt = max(expiresAt, other.expiresAt)
                }
            }
            let token = Secrets.randomToken()
            try await store.saveSSORecord(SSORecord(entries: live, expiresAt: expiresAt), hash: Secrets.hash(token))
            if let previousHash { try await store.deleteSSORecord(hash: previousHash) }
            return SSOCookie(value: token, maxAge: Int(expiresAt.timeIntervalSince(now)))
        } catch {
            logger.warning("could not remember the SSO sign-in", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The live sessions this browser signed in with for `client`'s auth service, most recent
    /// first, each brought up to date with its identity source (SPEC §9.11): one the source has
    /// ended since is left out (and ends), so SSO never outlives the sign-in it stands for.
    public func ssoSessions(for client: ResolvedClient, ssoToken: String?) async -> [LoginSession] {
        guard let ssoToken, Self.isWellFormedSSO(ssoToken),
              let record = try? await store.ssoRecord(hash: Secrets.hash(ssoToken)), record.expiresAt > clock.now() else { return [] }
        var sessions: [LoginSession] = []
        for entry in record.entries where entry.namespace == client.authService.namespace {
            guard let session = try? await store.session(id: entry.sessionId), session.isActive(at: clock.now()),
                  let fresh = try? await ensureFreshUpstream(session, authService: client.authService) else { continue }
            sessions.append(fresh)
        }
        return sessions
    }

    /// Whether the browser's SSO record holds `sessionId` (a logout may then end it silently).
    public func ssoRecordHolds(_ sessionId: String, ssoToken: String?) async -> Bool {
        guard let ssoToken, Self.isWellFormedSSO(ssoToken),
              let record = try? await store.ssoRecord(hash: Secrets.hash(ssoToken)), record.expiresAt > clock.now() else { return false }
        return record.entries.contains { $0.sessionId == sessionId }
    }

    /// Authorizes `request` with an existing sign-in: issues the code without showing the form.
    public func authorizeWithSession(_ request: AuthorizationRequest, session: LoginSession) async throws -> String {
        let now = clock.now()
        let pending = PendingAuthorization(
            clientId: request.client.clientId, appKey: request.client.appKey, authServiceId: request.client.service.id,
            redirectURI: request.redirectURI, scope: request.scope, state: request.state, nonce: request.nonce,
            codeChallenge: request.codeChallenge, mode: .browser, createdAt: now, expiresAt: now)
        return try await guarded("SSO code") { try await issueCode(for: pending, session: session, client: request.client) }
    }

    /// Ends the browser's SSO record and every session in it; returns the sessions' ids.
    @discardableResult
    public func forgetSSO(_ ssoToken: String?) async throws -> [String] {
        guard let ssoToken, Self.isWellFormedSSO(ssoToken) else { return [] }
        let hash = Secrets.hash(ssoToken)
        guard let record = try await guarded("sso", { try await store.ssoRecord(hash: hash) }) else { return [] }
        let now = clock.now()
        try await guarded("sso logout") {
            for entry in record.entries { try await store.revokeSession(id: entry.sessionId, at: now) }
            try await store.deleteSSORecord(hash: hash)
        }
        return record.entries.map(\.sessionId)
    }

    static func isWellFormedSSO(_ token: String) -> Bool {
        token.utf8.count == 43 && Base64URL.decode(token) != nil
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
