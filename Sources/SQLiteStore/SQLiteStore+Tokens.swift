import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: AccessTokenStore {
    public func insertOpaqueToken(_ token: OpaqueAccessToken) async throws {
        let data = try encode(token)
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO opaque_access_tokens (token_hash, data, expires_at) VALUES (?, ?, ?)")
                .execute(arguments: [token.hash, data, token.expiresAt.sql])
        }
    }

    public func opaqueToken(hash: String) async throws -> OpaqueAccessToken? {
        let data = try await pointRead { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT data FROM opaque_access_tokens WHERE token_hash = ?"),
                arguments: [hash])
        }
        return try data.map { try decode(OpaqueAccessToken.self, $0) }
    }

    public var accessContextChanges: UInt64 { accessChanges.value }

    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        defer { accessChanges.bump() }  // after the write: see AccessTokenStore.accessContextChanges
        try await write { db in
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)")
                .execute(arguments: [jti, expiresAt.sql])
        }
    }

    public func isAccessTokenRevoked(jti: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM revoked_access_tokens WHERE jti = ?"),
                arguments: [jti]) ?? false
        }
    }
}

extension SQLiteStore: SigningKeyStore {
    public func signingKeys() async throws -> [StoredSigningKey] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM signing_keys ORDER BY created_at").map { row in
                StoredSigningKey(kid: row["kid"], algorithm: row["algorithm"], sealedPrivateKey: row["private_key"],
                                 createdAt: Date(timeIntervalSince1970: row["created_at"]),
                                 retiredAt: Date(sql: row["retired_at"]), removeAfter: Date(sql: row["remove_after"]))
            }
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO signing_keys (kid, algorithm, private_key, created_at, retired_at, remove_after)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [key.kid, key.algorithm, key.sealedPrivateKey, key.createdAt.sql,
                                 key.retiredAt?.sql, key.removeAfter?.sql])
        }
    }

    public func retireSigningKey(kid: String, at date: Date, removeAfter: Date) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE signing_keys SET retired_at = COALESCE(retired_at, ?), remove_after = ? WHERE kid = ?")
                .execute(arguments: [date.sql, removeAfter.sql, kid])
        }
    }
}
