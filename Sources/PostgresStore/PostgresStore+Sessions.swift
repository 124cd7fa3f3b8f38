import Foundation
import IdentityCore
import StoreContracts
import PostgresNIO

extension PostgresStore: SessionStore {
    public func insertSession(_ session: LoginSession) async throws {
        _ = try await rows("INSERT INTO sessions (\(unescaped: Self.sessionColumns)) VALUES (\(valuesOf: session))")
    }

    public func session(id: String) async throws -> LoginSession? {
        guard let row = try await rows("SELECT \(unescaped: Self.sessionColumns) FROM sessions WHERE id = \(id)").first else {
            return nil
        }
        return try Self.session(from: row.makeRandomAccess())
    }

    public func liveSessions(authServiceId: String?, user: String?, at now: Date, limit: Int) async throws -> [LoginSession] {
        try await rows("""
            SELECT \(unescaped: Self.sessionColumns) FROM sessions
            WHERE revoked_at IS NULL AND expires_at > \(now.pg)
              AND (\(authServiceId)::TEXT IS NULL OR auth_service_id = \(authServiceId))
              AND (\(user)::TEXT IS NULL OR lower(user_id) = lower(\(user)) OR subject = \(user))
            ORDER BY created_at DESC LIMIT \(limit)
            """).map { try Self.session(from: $0.makeRandomAccess()) }
    }

    /// The columns `session(from:at:)` reads, in its order; select exactly these. Inserts list
    /// them too, with `\(valuesOf: session)`.
    static let sessionColumns = """
        id, subject, user_id, app_key, auth_service_id, attributes, upstream, upstream_expires_at, \
        auth_time, created_at, expires_at, revoked_at, version, max_expires_at, user_agent, client_address, last_used_at, amr, \
        upstream_session
        """

    /// Maps `sessionColumns` starting at column `offset`.
    static func session(from row: PostgresRandomAccessRow, at offset: Int = 0) throws -> LoginSession {
        guard case .object(let attributes)? = JSONValue(parsing: try row[offset + 5].decode(Data.self)) else {
            throw PostgresStoreError("session attributes are not a JSON object")
        }
        return LoginSession(
            id: try row[offset].decode(String.self), subject: try row[offset + 1].decode(String.self),
            userId: try row[offset + 2].decode(String.self), appKey: try row[offset + 3].decode(String.self),
            authServiceId: try row[offset + 4].decode(String.self), attributes: attributes,
            sealedUpstream: try row[offset + 6].decode(Data?.self),
            upstreamExpiresAt: Date(pg: try row[offset + 7].decode(Double?.self)),
            authTime: Date(timeIntervalSince1970: try row[offset + 8].decode(Double.self)),
            createdAt: Date(timeIntervalSince1970: try row[offset + 9].decode(Double.self)),
            expiresAt: Date(timeIntervalSince1970: try row[offset + 10].decode(Double.self)),
            maxExpiresAt: Date(pg: try row[offset + 13].decode(Double?.self)),
            revokedAt: Date(pg: try row[offset + 11].decode(Double?.self)), version: try row[offset + 12].decode(Int.self),
            userAgent: try row[offset + 14].decode(String?.self), clientAddress: try row[offset + 15].decode(String?.self),
            lastUsedAt: Date(pg: try row[offset + 16].decode(Double?.self)),
            amr: LoginSession.amr(column: try row[offset + 17].decode(String?.self)),
            upstreamSessionKey: try row[offset + 18].decode(String?.self))
    }

    public func revokeSession(id: String, at date: Date) async throws {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        try await transaction { [logger] connection in
            try await connection.query("""
                UPDATE sessions SET revoked_at = COALESCE(revoked_at, \(date.pg)), upstream = NULL WHERE id = \(id)
                """, logger: logger)
            try await connection.query("""
                UPDATE token_families SET revoked_at = COALESCE(revoked_at, \(date.pg)) WHERE session_id = \(id)
                """, logger: logger)
        }
    }

    public func touchSession(id: String, at date: Date) async throws {
        _ = try await rows("UPDATE sessions SET last_used_at = \(date.pg) WHERE id = \(id)")
    }

    public func unrevokedFamilies(sessionIds: [String]) async throws -> [TokenFamily] {
        guard !sessionIds.isEmpty else { return [] }
        return try await rows("""
            SELECT \(unescaped: Self.familyColumns) FROM token_families
            WHERE revoked_at IS NULL AND session_id = ANY(\(sessionIds)) ORDER BY created_at
            """).map { try Self.family(from: $0.makeRandomAccess()) }
    }

    /// One statement: the sessions end and their families are revoked together.
    public func endSessions(subject: String, upstreamSessionKeys: [String]?, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        let keys = upstreamSessionKeys ?? []
        let narrowed = !keys.isEmpty
        return try await rows("""
            WITH ended AS (
                UPDATE sessions SET revoked_at = \(date.pg), upstream = NULL
                WHERE subject = \(subject) AND revoked_at IS NULL AND expires_at > \(date.pg)
                  AND (NOT \(narrowed) OR upstream_session IS NULL OR upstream_session = ANY(\(keys)))
                RETURNING id
            ), families AS (
                UPDATE token_families SET revoked_at = COALESCE(revoked_at, \(date.pg))
                WHERE session_id IN (SELECT id FROM ended) RETURNING 1
            )
            SELECT id FROM ended
            """).map { try $0.decode(String.self) }.sorted()
    }

    /// One statement, as `endSessions(subject:…)`; the partial index on `upstream_session` finds them.
    public func endSessions(upstreamSessionKey: String, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await rows("""
            WITH ended AS (
                UPDATE sessions SET revoked_at = \(date.pg), upstream = NULL
                WHERE upstream_session = \(upstreamSessionKey) AND revoked_at IS NULL AND expires_at > \(date.pg)
                RETURNING id
            ), families AS (
                UPDATE token_families SET revoked_at = COALESCE(revoked_at, \(date.pg))
                WHERE session_id IN (SELECT id FROM ended) RETURNING 1
            )
            SELECT id FROM ended
            """).map { try $0.decode(String.self) }.sorted()
    }

    public func updateUpstream(sessionId: String, sealedUpstream: Data?, upstreamExpiresAt: Date?,
                               attributes: [String: JSONValue]?, expectedVersion: Int) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        let encodedAttributes = try attributes.map { try encode($0) }
        return try await rows("""
            UPDATE sessions SET upstream = \(sealedUpstream), upstream_expires_at = \(upstreamExpiresAt?.pg),
                attributes = COALESCE(\(encodedAttributes), attributes), version = version + 1
            WHERE id = \(sessionId) AND version = \(expectedVersion) AND revoked_at IS NULL RETURNING 1
            """).count == 1
    }
}

extension PostgresStore: TokenFamilyStore {
    public func insertFamily(_ family: TokenFamily) async throws {
        try await transaction { [logger] connection in try await Self.insert(family, on: connection, logger: logger) }
    }

    /// The family row, and the session's extension when it has a refresh token, inside the
    /// transaction `connection` is in.
    static func insert(_ family: TokenFamily, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO token_families (id, session_id, client_id, scope, nonce, created_at, revoked_at,
                refresh_hash, refresh_expires_at, previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims,
                dpop_jkt)
            VALUES (\(family.id), \(family.sessionId), \(family.clientId), \(family.scope), \(family.nonce),
                \(family.createdAt.pg), \(family.revokedAt?.pg), \(family.refreshHash), \(family.refreshExpiresAt?.pg),
                \(family.previousRefreshHash), \(family.rotatedAt?.pg), \(family.graceResponse), \(family.clientAuthenticated),
                \(TokenFamily.encode(family.resources)), \(ClaimsRequest.encode(family.claims)), \(family.dpopJkt))
            """, logger: logger)
        if let expiry = family.refreshExpiresAt {
            try await connection.query(Self.extendSession(to: expiry, usedAt: family.createdAt, sessionId: family.sessionId), logger: logger)
        }
    }

    public func family(id: String) async throws -> TokenFamily? {
        try await rows("SELECT \(unescaped: Self.familyColumns) FROM token_families WHERE id = \(id)").first
            .map { try Self.family(from: $0.makeRandomAccess()) }
    }

    public func family(refreshHash: String) async throws -> (TokenFamily, RefreshTokenMatch)? {
        // One round trip: the current token, the one rotated away last, or an older (retired) one.
        guard let row = try await rows("""
            SELECT 0, \(unescaped: Self.familyColumns) FROM token_families WHERE refresh_hash = \(refreshHash)
            UNION ALL
            SELECT 1, \(unescaped: Self.familyColumns) FROM token_families WHERE previous_refresh_hash = \(refreshHash)
            UNION ALL
            SELECT 2, \(unescaped: Self.familyColumnsOfF) FROM retired_refresh_tokens r
                JOIN token_families f ON f.id = r.family_id WHERE r.token_hash = \(refreshHash)
            ORDER BY 1 LIMIT 1
            """).first else { return nil }
        let columns = row.makeRandomAccess()
        let match: RefreshTokenMatch = switch try columns[0].decode(Int32.self) {
        case 0: .current
        case 1: .previous
        default: .retired
        }
        return (try Self.family(from: columns, at: 1), match)
    }

    /// Compare-and-swap in one transaction: the family row is locked only if `oldHash` is still
    /// current, so of concurrent rotations exactly one finds it and the rest get `false`.
    public func rotateRefresh(familyId: String, from oldHash: String, to newHash: String, expiresAt: Date,
                              graceResponse: Data?, at date: Date) async throws -> Bool {
        try await transaction { [logger] connection in
            let locked = try await connection.query("""
                SELECT session_id, previous_refresh_hash FROM token_families
                WHERE id = \(familyId) AND refresh_hash = \(oldHash) AND revoked_at IS NULL FOR UPDATE
                """, logger: logger).collect()
            guard let row = locked.first else { return false }
            let (sessionId, previous) = try row.decode((String, String?).self)
            try await connection.query("""
                UPDATE token_families SET refresh_hash = \(newHash), refresh_expires_at = \(expiresAt.pg),
                    previous_refresh_hash = \(oldHash), rotated_at = \(date.pg), grace_response = \(graceResponse)
                WHERE id = \(familyId)
                """, logger: logger)
            if let previous {
                try await connection.query("""
                    INSERT INTO retired_refresh_tokens (token_hash, family_id) VALUES (\(previous), \(familyId))
                    ON CONFLICT (token_hash) DO NOTHING
                    """, logger: logger)
            }
            try await connection.query(Self.extendSession(to: expiresAt, usedAt: date, sessionId: sessionId), logger: logger)
            return true
        }
    }

    @discardableResult
    public func revokeFamily(id: String, at date: Date) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await rows("UPDATE token_families SET revoked_at = COALESCE(revoked_at, \(date.pg)) WHERE id = \(id) RETURNING 1").count == 1
    }

    public func revokeFamilies(clientId: String, at date: Date) async throws -> [String] {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        let sessions = try await rows("""
            UPDATE token_families SET revoked_at = \(date.pg) WHERE client_id = \(clientId) AND revoked_at IS NULL
            RETURNING session_id
            """).map { try $0.decode(String.self) }
        return Array(Set(sessions)).sorted()
    }

    public func endSessionIfUnused(id: String, at date: Date, issuedAfter: Date) async throws -> Bool {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        return try await rows("""
            UPDATE sessions SET revoked_at = \(date.pg), upstream = NULL
            WHERE id = \(id) AND revoked_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM token_families WHERE session_id = \(id) AND revoked_at IS NULL
                  AND (COALESCE(refresh_expires_at, 0) > \(date.pg)
                       OR GREATEST(created_at, COALESCE(rotated_at, 0)) > \(issuedAfter.pg)))
            RETURNING 1
            """).count == 1
    }

    /// A new refresh token moves the session's end out to its expiry, never past the session's
    /// absolute end (`sessionMaxAge`, the identity source's own session end), and notes the
    /// session's last use (the account page) in the same statement.
    static func extendSession(to expiry: Date, usedAt: Date, sessionId: String) -> PostgresQuery {
        """
        UPDATE sessions SET expires_at = GREATEST(expires_at, LEAST(\(expiry.pg), COALESCE(max_expires_at, 1e15))),
            last_used_at = \(usedAt.pg)
        WHERE id = \(sessionId)
        """
    }

    /// The columns `family(from:at:)` reads, in its order; select exactly these.
    static let familyColumns = """
        id, session_id, client_id, scope, nonce, created_at, revoked_at, refresh_hash, refresh_expires_at, \
        previous_refresh_hash, rotated_at, grace_response, client_authenticated, resources, claims, dpop_jkt
        """

    /// How many columns `familyColumns` has (where the next table's columns start in a join).
    static let familyColumnCount = 16

    /// `familyColumns` of the table alias `f`, for joins (made once, not per query).
    static let familyColumnsOfF = qualified(familyColumns, alias: "f")

    /// `sessionColumns` of the table alias `s`, for joins (made once, not per query).
    static let sessionColumnsOfS = qualified(sessionColumns, alias: "s")

    /// A column list with every column prefixed by a table alias, for joins.
    static func qualified(_ columns: String, alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
    }

    /// Maps `familyColumns` starting at column `offset`.
    static func family(from row: PostgresRandomAccessRow, at offset: Int = 0) throws -> TokenFamily {
        TokenFamily(
            id: try row[offset].decode(String.self), sessionId: try row[offset + 1].decode(String.self),
            clientId: try row[offset + 2].decode(String.self), scope: try row[offset + 3].decode(String.self),
            nonce: try row[offset + 4].decode(String?.self),
            createdAt: Date(timeIntervalSince1970: try row[offset + 5].decode(Double.self)),
            revokedAt: Date(pg: try row[offset + 6].decode(Double?.self)), refreshHash: try row[offset + 7].decode(String?.self),
            refreshExpiresAt: Date(pg: try row[offset + 8].decode(Double?.self)),
            previousRefreshHash: try row[offset + 9].decode(String?.self),
            rotatedAt: Date(pg: try row[offset + 10].decode(Double?.self)), graceResponse: try row[offset + 11].decode(Data?.self),
            clientAuthenticated: try row[offset + 12].decode(Bool.self),
            resources: TokenFamily.decode(try row[offset + 13].decode(String?.self)),
            claims: ClaimsRequest.decode(try row[offset + 14].decode(String?.self)),
            dpopJkt: try row[offset + 15].decode(String?.self))
    }
}
