import Foundation
import IdentityCore
import IdentityStore

/// The SSO cookie to set after a browser sign-in.
public struct SSOCookie: Sendable {
    public let value: String
    public let maxAge: Int
}

extension BrokerEngine {
    /// Remembers a browser sign-in in the browser's SSO record (creating one when the browser has
    /// none), so another app using the same auth service can sign in without the form (SPEC §3.1).
    public func rememberSignIn(_ session: LoginSession, client: ResolvedClient, ssoToken: String?) async -> SSOCookie? {
        let now = clock.now()
        do {
            var token = ssoToken.flatMap { Self.isWellFormedSSO($0) ? $0 : nil }
            var record = try await token.asyncMap { try await store.ssoRecord(hash: Secrets.hash($0)) } ?? nil
            if record == nil || record!.expiresAt <= now {
                token = Secrets.randomToken()
                record = SSORecord(entries: [], expiresAt: now)
            }
            guard let token, var record else { return nil }
            let namespace = client.authService.namespace
            record.entries.removeAll { $0.namespace == namespace && $0.userId == session.userId }
            record.entries.insert(.init(namespace: namespace, sessionId: session.id, userId: session.userId, signedInAt: now), at: 0)
            record.entries = Array(record.entries.prefix(20))
            record.expiresAt = max(record.expiresAt, session.expiresAt)
            try await store.saveSSORecord(record, hash: Secrets.hash(token))
            return SSOCookie(value: token, maxAge: Int(record.expiresAt.timeIntervalSince(now)))
        } catch {
            logger.warning("could not remember the SSO sign-in", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The live sessions this browser signed in with for `client`'s auth service, most recent first.
    public func ssoSessions(for client: ResolvedClient, ssoToken: String?) async -> [LoginSession] {
        guard let ssoToken, Self.isWellFormedSSO(ssoToken),
              let record = try? await store.ssoRecord(hash: Secrets.hash(ssoToken)), record.expiresAt > clock.now() else { return [] }
        var sessions: [LoginSession] = []
        for entry in record.entries where entry.namespace == client.authService.namespace {
            if let session = try? await store.session(id: entry.sessionId), session.isActive(at: clock.now()) {
                sessions.append(session)
            }
        }
        return sessions
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
