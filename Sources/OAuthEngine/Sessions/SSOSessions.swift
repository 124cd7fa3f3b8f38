import Foundation
import IdentityCore
import Logging
import StoreContracts

/// The SSO cookie to set after a browser sign-in.
public struct SSOCookie: Sendable, Equatable {
    public let value: String
    public let maxAge: Int
}

/// Browser sign-ins (docs/protocol.md, "SSO"): what the `idc_sso` cookie names, stored under its
/// hash.
public struct SSOSessions: Sendable {
    let records: any SSOStore
    let sessionStore: any SessionStore
    let refresher: UpstreamRefresher
    let clock: any BrokerClock
    let audit: AuditTrail
    let logger: Logger

    /// Remembers an interactive browser sign-in under a **new** SSO cookie value
    /// (docs/security.md, rule 10): the record the browser's old cookie named is replaced, never
    /// added to, so a cookie planted before the sign-in never leads to the new session. The
    /// browser's other live sign-ins move to the new record (the account chooser keeps them).
    public func remember(_ session: LoginSession, client: ResolvedClient, ssoToken: String?) async -> SSOCookie? {
        let now = clock.now()
        do {
            var entries: [SSORecord.Entry] = []
            var previousHash: String?
            if let ssoToken, Self.isWellFormed(ssoToken) {
                let hash = Secrets.hash(ssoToken)
                if let previous = try await records.ssoRecord(hash: hash), previous.expiresAt > now {
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
                } else if let other = try await sessionStore.session(id: entry.sessionId), other.isActive(at: now) {
                    live.append(entry)
                    expiresAt = max(expiresAt, other.expiresAt)
                }
            }
            let token = Secrets.randomToken()
            try await records.saveSSORecord(SSORecord(entries: live, expiresAt: expiresAt), hash: Secrets.hash(token))
            if let previousHash { try await records.deleteSSORecord(hash: previousHash) }
            return SSOCookie(value: token, maxAge: Int(expiresAt.timeIntervalSince(now)))
        } catch {
            logger.warning("could not remember the SSO sign-in", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The live sessions this browser signed in with for `client`'s auth service, most recent
    /// first, each brought up to date with its identity source (docs/security.md, rule 11): one the
    /// source has ended since is left out (and ends), so SSO never outlives the sign-in it stands
    /// for.
    public func sessions(for client: ResolvedClient, ssoToken: String?) async -> [LoginSession] {
        guard let record = await record(ssoToken) else { return [] }
        var sessions: [LoginSession] = []
        for entry in record.entries where entry.namespace == client.authService.namespace {
            guard let session = try? await sessionStore.session(id: entry.sessionId), session.isActive(at: clock.now()),
                  let fresh = try? await refresher.ensureFresh(session, authService: client.authService) else { continue }
            sessions.append(fresh)
        }
        return sessions
    }

    /// Whether the browser's SSO record holds `sessionId` (a logout may then end it silently).
    public func holds(_ sessionId: String, ssoToken: String?) async -> Bool {
        await record(ssoToken)?.entries.contains { $0.sessionId == sessionId } ?? false
    }

    /// The sign-ins of the browser's SSO record, most recent first (empty when it has none).
    public func entries(_ ssoToken: String?) async -> [SSORecord.Entry] {
        await record(ssoToken)?.entries ?? []
    }

    /// Ends the browser's SSO record and every session in it; returns its entries.
    @discardableResult
    public func forget(_ ssoToken: String?) async throws -> [SSORecord.Entry] {
        guard let ssoToken, Self.isWellFormed(ssoToken) else { return [] }
        let hash = Secrets.hash(ssoToken)
        guard let record = try await records.ssoRecord(hash: hash) else { return [] }
        let now = clock.now()
        for entry in record.entries { try await sessionStore.revokeSession(id: entry.sessionId, at: now) }
        try await records.deleteSSORecord(hash: hash)
        audit.sessionsEnded(record.entries.map(\.sessionId), reason: .logout)
        return record.entries
    }

    private func record(_ ssoToken: String?) async -> SSORecord? {
        guard let ssoToken, Self.isWellFormed(ssoToken),
              let record = try? await records.ssoRecord(hash: Secrets.hash(ssoToken)), record.expiresAt > clock.now() else { return nil }
        return record
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && Base64URL.decode(token) != nil
    }
}
