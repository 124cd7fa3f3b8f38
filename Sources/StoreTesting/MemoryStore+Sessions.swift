import Foundation
import IdentityCore
import StoreContracts

extension MemoryStore: SessionStore {
    public func insertSession(_ session: LoginSession) async throws {
        try transaction { try $0.insert(session) }
    }

    /// The pending authorization (when named) must still be there; the session and code are
    /// stored with its removal, and the throttle's reset is done whether or not it was there —
    /// but not when the completion fails.
    public func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?,
                               throttleReset: ThrottleReset?) async throws -> Bool {
        try transaction { tables in
            let completed = pendingIdHash.map { tables.pending.removeValue(forKey: $0) != nil } ?? true
            if completed {
                try tables.insert(session)
                try tables.codes.insertNew(CodeRow(code: code), at: code.hash, table: "authorization_codes")
            }
            if let throttleReset { tables.applyThrottleReset(throttleReset) }
            return completed
        }
    }

    public func startSession(_ session: LoginSession, family: TokenFamily, throttleReset: ThrottleReset?) async throws {
        try transaction { tables in
            try tables.insert(session.extended(for: family))
            try tables.insertRow(family)
            if let throttleReset { tables.applyThrottleReset(throttleReset) }
        }
    }

    public func session(id: String) async throws -> LoginSession? {
        try read { $0.sessions[id] }
    }

    public func revokeSession(id: String, at date: Date) async throws {
        try accessContextWrite { tables in
            tables.endSession(id, at: date)
            tables.revokeFamilies(inSession: id, at: date)
        }
    }

    /// Matches the user id without regard to case (`lowercased()`, as PostgreSQL's `lower()` under
    /// a UTF-8 locale; SQLite's `lower()` folds ASCII letters only), or the subject exactly.
    public func liveSessions(authServiceId: String?, user: String?, at now: Date, limit: Int) async throws -> [LoginSession] {
        try read { tables in
            let live = tables.sessions.values.filter { session in
                session.revokedAt == nil && session.expiresAt > now
                    && (authServiceId == nil || session.authServiceId == authServiceId)
                    && (user.map { session.userId.lowercased() == $0.lowercased() || session.subject == $0 } ?? true)
            }
            let newestFirst = live.sorted { $1.createdAt.isBefore($0.createdAt, orElse: $0.id.precedesInBytes($1.id)) }
            return Array(newestFirst.prefix(max(0, limit)))
        }
    }

    public func touchSession(id: String, at date: Date) async throws {
        try transaction { tables in tables.sessions[id]?.lastUsedAt = date }
    }

    /// An empty `upstreamSessionKeys` narrows nothing, as nil.
    public func endSessions(subject: String, upstreamSessionKeys: [String]?, at date: Date) async throws -> [String] {
        try accessContextWrite { tables in
            let keys = upstreamSessionKeys.flatMap { $0.isEmpty ? nil : Set($0) }
            let ended = tables.sessions.values.filter { session in
                session.subject == subject && session.revokedAt == nil && session.expiresAt > date
                    && (keys.map { session.upstreamSessionKey.map($0.contains) ?? true } ?? true)
            }.map(\.id).sorted()
            for id in ended {
                tables.endSession(id, at: date)
                tables.revokeFamilies(inSession: id, at: date)
            }
            return ended
        }
    }

    public func endSessions(upstreamSessionKey: String, at date: Date) async throws -> [String] {
        try accessContextWrite { tables in
            let ended = tables.sessions.values.filter { session in
                session.upstreamSessionKey == upstreamSessionKey && session.revokedAt == nil && session.expiresAt > date
            }.map(\.id).sorted()
            for id in ended {
                tables.endSession(id, at: date)
                tables.revokeFamilies(inSession: id, at: date)
            }
            return ended
        }
    }

    /// Compare-and-swap on the version, for a session not revoked; nil attributes keep the stored ones.
    public func updateUpstream(sessionId: String, sealedUpstream: Data?, upstreamExpiresAt: Date?,
                               attributes: [String: JSONValue]?, expectedVersion: Int) async throws -> Bool {
        try accessContextWrite { tables in
            guard var session = tables.sessions[sessionId], session.version == expectedVersion, session.revokedAt == nil else {
                return false
            }
            session.sealedUpstream = sealedUpstream
            session.upstreamExpiresAt = upstreamExpiresAt
            session.attributes = attributes ?? session.attributes
            session.version += 1
            tables.sessions[sessionId] = session
            return true
        }
    }
}
