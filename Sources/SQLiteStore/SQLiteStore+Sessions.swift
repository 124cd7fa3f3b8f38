import Foundation
import GRDB
import StoreContracts
import IdentityCore

extension SQLiteStore: SessionStore {
    public func insertSession(_ session: LoginSession) async throws {
        let attributes = session.storedAttributes
        try await write { db in try Self.insert(session, attributes: attributes, in: db) }
    }

    /// The session row, inside whatever transaction `db` is in.
    static func insert(_ session: LoginSession, attributes: Data, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO sessions (id, subject, user_id, app_key, auth_service_id, attributes, upstream,
                upstream_expires_at, auth_time, created_at, expires_at, revoked_at, version, max_expires_at,
                user_agent, client_address, last_used_at, amr, upstream_session)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [session.id, session.subject, session.userId, session.appKey, session.authServiceId,
                             attributes, session.sealedUpstream, session.upstreamExpiresAt?.sql,
                             session.authTime.sql, session.createdAt.sql, session.expiresAt.sql,
                             session.revokedAt?.sql, session.version, session.maxExpiresAt?.sql,
                             session.userAgent, session.clientAddress, session.lastUsedAt?.sql,
                             LoginSession.amrColumn(session.amr), session.upstreamSessionKey])
    }

    public func session(id: String) async throws -> LoginSession? {
        try await writerRead { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?"), arguments: [id])
                .map { try self.session(from: $0) }
        }
    }

    public func liveSessions(authServiceId: String?, user: String?, at now: Date, limit: Int) async throws -> [LoginSession] {
        try await pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.sessionColumns) FROM sessions
                WHERE revoked_at IS NULL AND expires_at > ?
                  AND (? IS NULL OR auth_service_id = ?) AND (? IS NULL OR lower(user_id) = lower(?) OR subject = ?)
                ORDER BY created_at DESC LIMIT ?
                """),
                arguments: [now.sql, authServiceId, authServiceId, user, user, user, limit]).map { try self.session(from: $0) }
        }
    }

    /// The columns `session(from:at:)` reads, in its order; select exactly these.
    static let sessionColumns = """
        id, subject, user_id, app_key, auth_service_id, attributes, upstream, upstream_expires_at, \
        auth_time, created_at, expires_at, revoked_at, version, max_expires_at, user_agent, client_address, last_used_at, amr, \
        upstream_session
        """

    /// Maps `sessionColumns` starting at column `offset` (columns by position: looking them up by
    /// name was a visible cost on the validate path).
    func session(from row: Row, at offset: Int = 0) throws -> LoginSession {
        LoginSession(
            id: row[offset], subject: row[offset + 1], userId: row[offset + 2], appKey: row[offset + 3],
            authServiceId: row[offset + 4],
            attributes: try Self.attributes(row[offset + 5]),
            sealedUpstream: row[offset + 6], upstreamExpiresAt: Date(sql: row[offset + 7]),
            authTime: Date(timeIntervalSince1970: row[offset + 8]),
            createdAt: Date(timeIntervalSince1970: row[offset + 9]),
            expiresAt: Date(timeIntervalSince1970: row[offset + 10]),
            maxExpiresAt: Date(sql: row[offset + 13]), revokedAt: Date(sql: row[offset + 11]), version: row[offset + 12],
            userAgent: row[offset + 14], clientAddress: row[offset + 15], lastUsedAt: Date(sql: row[offset + 16]),
            amr: LoginSession.amr(column: row[offset + 17]), upstreamSessionKey: row[offset + 18])
    }

    public func revokeSession(id: String, at date: Date) async throws {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        try await write { db in
            try db.cachedStatement(sql: "UPDATE sessions SET revoked_at = COALESCE(revoked_at, ?), upstream = NULL WHERE id = ?")
                .execute(arguments: [date.sql, id])
            try db.cachedStatement(sql: "UPDATE token_families SET revoked_at = COALESCE(revoked_at, ?) WHERE session_id = ?")
                .execute(arguments: [date.sql, id])
        }
    }

    public func touchSession(id: String, at date: Date) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?").execute(arguments: [date.sql, id])
        }
    }

    public func unrevokedFamilies(sessionIds: [String]) async throws -> [TokenFamily] {
        guard !sessionIds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: sessionIds.count).joined(separator: ", ")
        return try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.familyColumns) FROM token_families
                WHERE revoked_at IS NULL AND session_id IN (\(marks)) ORDER BY created_at
                """, arguments: StatementArguments(sessionIds)).map { Self.family(from: $0) }
        }
    }

    public func updateUpstream(sessionId: String, sealedUpstream: Data?, upstreamExpiresAt: Date?,
                               attributes: [String: JSONValue]?, expectedVersion: Int) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        let encodedAttributes = try attributes.map { try encode($0) }
        return try await write { db in
            try db.cachedStatement(sql: """
                UPDATE sessions SET upstream = ?, upstream_expires_at = ?, attributes = COALESCE(?, attributes),
                    version = version + 1
                WHERE id = ? AND version = ? AND revoked_at IS NULL
                """).execute(arguments: [sealedUpstream, upstreamExpiresAt?.sql, encodedAttributes, sessionId, expectedVersion])
            return db.changesCount == 1
        }
    }
}

extension SQLiteStore {
    struct CorruptAttributes: Error {}

    static func attributes(_ data: Data) throws -> [String: JSONValue] {
        guard case .object(let object)? = JSONValue(parsing: data) else { throw CorruptAttributes() }
        return object
    }
}

extension SQLiteStore: TokenFamilyStore {
    public func insertFamily(_ family: TokenFamily) async throws {
        try await write { db in try Self.insert(family, in: db) }
    }

    /// The family row, and the session's extension when it has a refresh token, inside whatever
    /// transaction `db` is in.
    static func insert(_ family: TokenFamily, in db: Database) throws {
        try insertRow(family, in: db)
        if let expiry = family.refreshExpiresAt {
            try db.cachedStatement(sql: Self.extendSessionSQL).execute(arguments: [expiry.sql, family.createdAt.sql, family.sessionId])
        }
    }

    /// The family row alone, for a session written already extended (`LoginSession.extended(for:)`).
    static func insertRow(_ family: TokenFamily, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO token_families (id, session_id, client_id, scope, nonce, created_at, revoked_at,
                refresh_hash, refresh_expires_at, previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims, dpop_jkt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [family.id, family.sessionId, family.clientId, family.scope, family.nonce,
                             family.createdAt.sql, family.revokedAt?.sql, family.refreshHash,
                             family.refreshExpiresAt?.sql, family.previousRefreshHash, family.rotatedAt?.sql,
                             family.graceResponse, family.clientAuthenticated, TokenFamily.encode(family.resources),
                             ClaimsRequest.encode(family.claims), family.dpopJkt])
    }

    public func family(id: String) async throws -> TokenFamily? {
        try await writerRead { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.familyColumns) FROM token_families WHERE id = ?"),
                arguments: [id])
                .map { Self.family(from: $0) }
        }
    }

    public func family(refreshHash: String) async throws -> (TokenFamily, RefreshTokenMatch)? {
        try await writerRead { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: Self.familyByRefreshSQL), arguments: [refreshHash]) else {
                return nil
            }
            let match: RefreshTokenMatch = switch row[0] as Int {
            case 0: .current
            case 1: .previous
            default: .retired
            }
            return (Self.family(from: row, at: 1), match)
        }
    }

    public func rotateRefresh(familyId: String, from oldHash: String, to newHash: String, expiresAt: Date,
                              graceResponse: Data?, at date: Date) async throws -> Bool {
        try await write { db in
            // One read of the row, as in PostgresStore: its session and the hash the last rotation
            // replaced, found only while `oldHash` is still current (the writer connection holds the
            // transaction, so nothing changes the row between this read and the update).
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT session_id, previous_refresh_hash FROM token_families
                WHERE id = ? AND refresh_hash = ? AND revoked_at IS NULL
                """), arguments: [familyId, oldHash]) else { return false }
            let sessionId: String = row[0]
            let previous: String? = row[1]
            try db.cachedStatement(sql: """
                UPDATE token_families SET refresh_hash = ?, refresh_expires_at = ?, previous_refresh_hash = ?,
                    rotated_at = ?, grace_response = ?
                WHERE id = ?
                """).execute(arguments: [newHash, expiresAt.sql, oldHash, date.sql, graceResponse, familyId])
            if let previous {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO retired_refresh_tokens (token_hash, family_id) VALUES (?, ?)")
                    .execute(arguments: [previous, familyId])
            }
            try db.cachedStatement(sql: Self.extendSessionSQL).execute(arguments: [expiresAt.sql, date.sql, sessionId])
            return true
        }
    }

    @discardableResult
    public func revokeFamily(id: String, at date: Date) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await write { db in
            try db.cachedStatement(sql: "UPDATE token_families SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?")
                .execute(arguments: [date.sql, id])
            return db.changesCount > 0
        }
    }

    public func revokeFamilies(clientId: String, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await writeOffLoop { db in
            let sessions = try String.fetchAll(db.cachedStatement(sql: """
                SELECT DISTINCT session_id FROM token_families WHERE client_id = ? AND revoked_at IS NULL
                """), arguments: [clientId])
            try db.cachedStatement(sql: "UPDATE token_families SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL")
                .execute(arguments: [date.sql, clientId])
            return sessions
        }
    }

    public func endSessionIfUnused(id: String, at date: Date, issuedAfter: Date) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await write { db in
            try db.cachedStatement(sql: """
                UPDATE sessions SET revoked_at = ?, upstream = NULL
                WHERE id = ? AND revoked_at IS NULL
                  AND NOT EXISTS (SELECT 1 FROM token_families WHERE session_id = ? AND revoked_at IS NULL
                      AND (COALESCE(refresh_expires_at, 0) > ? OR MAX(created_at, COALESCE(rotated_at, 0)) > ?))
                """).execute(arguments: [date.sql, id, id, date.sql, issuedAfter.sql])
            return db.changesCount == 1
        }
    }

    /// A new refresh token moves the session's end out to its expiry, never past the session's
    /// absolute end (`sessionMaxAge`, the identity source's own session end), and notes the
    /// session's last use (the account page) in the same statement.
    static let extendSessionSQL = """
        UPDATE sessions SET expires_at = MAX(expires_at, MIN(?, COALESCE(max_expires_at, 1e15))), last_used_at = ? WHERE id = ?
        """

    /// A family by a refresh token in one statement: the current token (0), the one its last
    /// rotation replaced (1, through the partial index `token_families_previous`, which holds
    /// rotated families only: `SQLiteSchemaTests`), or an older, retired one (2); the match in
    /// column 0, the family from column 1. One statement is one read transaction, one pair of
    /// WAL read locks: a token that matches nothing (introspection of a stranger's token) took
    /// three before.
    static let familyByRefreshSQL = """
        SELECT 0, \(familyColumns) FROM token_families WHERE refresh_hash = ?1
        UNION ALL
        SELECT 1, \(familyColumns) FROM token_families WHERE previous_refresh_hash = ?1
        UNION ALL
        SELECT 2, \(familyColumnsOfF) FROM retired_refresh_tokens r JOIN token_families f ON f.id = r.family_id
            WHERE r.token_hash = ?1
        ORDER BY 1 LIMIT 1
        """

    /// The columns `family(from:at:)` reads, in its order; select exactly these.
    static let familyColumns = """
        id, session_id, client_id, scope, nonce, created_at, revoked_at, refresh_hash, refresh_expires_at, \
        previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims, dpop_jkt
        """

    /// How many columns `familyColumns` has (where the next table's columns start in a join).
    static let familyColumnCount = 16

    /// `familyColumns` of the table alias `f`, for joins (made once, not per query).
    static let familyColumnsOfF = qualified(familyColumns, alias: "f")

    /// A column list with every column prefixed by a table alias.
    static func qualified(_ columns: String, alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingSpacesAndTabs)" }.joined(separator: ", ")
    }

    /// Maps `familyColumns` starting at column `offset`.
    static func family(from row: Row, at offset: Int = 0) -> TokenFamily {
        TokenFamily(
            id: row[offset], sessionId: row[offset + 1], clientId: row[offset + 2], scope: row[offset + 3],
            nonce: row[offset + 4], createdAt: Date(timeIntervalSince1970: row[offset + 5]),
            revokedAt: Date(sql: row[offset + 6]), refreshHash: row[offset + 7],
            refreshExpiresAt: Date(sql: row[offset + 8]), previousRefreshHash: row[offset + 9],
            rotatedAt: Date(sql: row[offset + 10]), graceResponse: row[offset + 11], clientAuthenticated: row[offset + 12],
            resources: TokenFamily.decode(row[offset + 13]), claims: ClaimsRequest.decode(row[offset + 14]), dpopJkt: row[offset + 15])
    }
}
