import Foundation
import StoreContracts
import PostgresNIO

extension PostgresStore: AccessTokenStore {
    /// Family, session and the revocation flag in one round trip (the validate path).
    public func accessContext(familyId: String, jti: String) async throws -> AccessContext? {
        guard let row = try await rows("""
            SELECT EXISTS(SELECT 1 FROM revoked_access_tokens WHERE jti = \(jti)), \(unescaped: Self.familyColumnsOfF),
                \(unescaped: Self.sessionColumnsOfS)
            FROM token_families f JOIN sessions s ON s.id = f.session_id WHERE f.id = \(familyId)
            """).first else { return nil }
        let columns = row.makeRandomAccess()
        return AccessContext(family: try Self.family(from: columns, at: 1), session: try Self.session(from: columns, at: 1 + Self.familyColumnCount),
                             accessTokenRevoked: try columns[0].decode(Bool.self))
    }

    public func insertOpaqueToken(_ token: OpaqueAccessToken) async throws {
        let data = try encode(token)
        _ = try await rows("""
            INSERT INTO opaque_access_tokens (token_hash, data, expires_at) VALUES (\(token.hash), \(data), \(token.expiresAt.pg))
            """)
    }

    public func opaqueToken(hash: String) async throws -> OpaqueAccessToken? {
        guard let row = try await rows("SELECT data FROM opaque_access_tokens WHERE token_hash = \(hash)").first else { return nil }
        return try decode(OpaqueAccessToken.self, row.decode(Data.self))
    }

    public var accessContextChanges: UInt64 { accessChanges.value }

    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        _ = try await rows("""
            INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (\(jti), \(expiresAt.pg)) ON CONFLICT (jti) DO NOTHING
            """)
    }

    public func isAccessTokenRevoked(jti: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM revoked_access_tokens WHERE jti = \(jti)").isEmpty
    }
}

extension PostgresStore: SigningKeyStore {
    public func signingKeys() async throws -> [StoredSigningKey] {
        try await rows("""
            SELECT kid, algorithm, private_key, created_at, retired_at, remove_after FROM signing_keys ORDER BY created_at, kid
            """).map { row in
            let (kid, algorithm, key, created, retired, removeAfter) = try row.decode((String, String, Data, Double, Double?, Double?).self)
            return StoredSigningKey(kid: kid, algorithm: algorithm, sealedPrivateKey: key, createdAt: Date(timeIntervalSince1970: created),
                                    retiredAt: Date(pg: retired), removeAfter: Date(pg: removeAfter))
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        _ = try await rows("""
            INSERT INTO signing_keys (kid, algorithm, private_key, created_at, retired_at, remove_after)
            VALUES (\(key.kid), \(key.algorithm), \(key.sealedPrivateKey), \(key.createdAt.pg), \(key.retiredAt?.pg), \(key.removeAfter?.pg))
            """)
    }

    public func retireSigningKey(kid: String, at date: Date, removeAfter: Date) async throws {
        _ = try await rows("""
            UPDATE signing_keys SET retired_at = COALESCE(retired_at, \(date.pg)), remove_after = \(removeAfter.pg) WHERE kid = \(kid)
            """)
    }
}

extension PostgresStore: SSOStore {
    public func ssoRecord(hash: String) async throws -> SSORecord? {
        guard let row = try await rows("SELECT data FROM sso_sessions WHERE id_hash = \(hash)").first else { return nil }
        return try decode(SSORecord.self, row.decode(Data.self))
    }

    public func saveSSORecord(_ record: SSORecord, hash: String) async throws {
        let data = try encode(record)
        _ = try await rows("""
            INSERT INTO sso_sessions (id_hash, data, expires_at) VALUES (\(hash), \(data), \(record.expiresAt.pg))
            ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at
            """)
    }

    public func deleteSSORecord(hash: String) async throws {
        _ = try await rows("DELETE FROM sso_sessions WHERE id_hash = \(hash)")
    }
}

extension PostgresStore: RefreshLeaseStore {
    /// An upsert that only replaces an expired lease (or the holder's own): concurrent takers
    /// queue on the row and re-check, so one gets a row back.
    public func acquireRefreshLease(sessionId: String, holder: String, until: Date, now: Date) async throws -> Bool {
        try await !rows("""
            INSERT INTO refresh_leases (session_id, holder, expires_at) VALUES (\(sessionId), \(holder), \(until.pg))
            ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE refresh_leases.expires_at < \(now.pg) OR refresh_leases.holder = excluded.holder
            RETURNING 1
            """).isEmpty
    }

    public func releaseRefreshLease(sessionId: String, holder: String) async throws {
        _ = try await rows("DELETE FROM refresh_leases WHERE session_id = \(sessionId) AND holder = \(holder)")
    }
}

extension PostgresStore: SealedValueStore {
    public func sealedValues(_ kind: SealedValue.Kind, after cursor: String?, limit: Int) async throws -> [SealedValue] {
        let (table, id, scope, column) = kind.location
        return try await rows("""
            SELECT \(unescaped: id), \(unescaped: scope ?? "''::TEXT"), \(unescaped: column) FROM \(unescaped: table)
            WHERE \(unescaped: column) IS NOT NULL AND \(unescaped: id) COLLATE "C" > \(cursor ?? "")
            ORDER BY \(unescaped: id) COLLATE "C" LIMIT \(limit)
            """).map { row in
            let (owner, scope, data) = try row.decode((String, String, Data).self)
            return SealedValue(kind: kind, id: owner, scope: scope, data: data)
        }
    }

    public func replaceSealed(_ value: SealedValue, with sealed: Data) async throws -> Bool {
        let (table, id, _, column) = value.kind.location
        return try await !rows("""
            UPDATE \(unescaped: table) SET \(unescaped: column) = \(sealed)
            WHERE \(unescaped: id) = \(value.id) AND \(unescaped: column) = \(value.data) RETURNING 1
            """).isEmpty
    }
}
