import Foundation
import StoreContracts
import PostgresNIO

extension PostgresStore: PendingAuthorizationStore {
    public func insertPending(_ pending: PendingAuthorization, idHash: String) async throws {
        let data = try pending.storedJSON()
        _ = try await rows("""
            INSERT INTO pending_authorizations (id_hash, data, expires_at) VALUES (\(idHash), \(data), \(pending.expiresAt.pg))
            """)
    }

    public func pending(idHash: String) async throws -> PendingAuthorization? {
        guard let row = try await rows("SELECT data FROM pending_authorizations WHERE id_hash = \(idHash)").first else { return nil }
        return try PendingAuthorization.fromStoredJSON(row.decode(Data.self))
    }

    public func updatePending(_ pending: PendingAuthorization, idHash: String) async throws {
        let data = try pending.storedJSON()
        _ = try await rows("""
            UPDATE pending_authorizations SET data = \(data), expires_at = \(pending.expiresAt.pg) WHERE id_hash = \(idHash)
            """)
    }

    public func consumePending(idHash: String) async throws -> Bool {
        try await rows("DELETE FROM pending_authorizations WHERE id_hash = \(idHash) RETURNING 1").count == 1
    }
}

extension PostgresStore: AuthorizationCodeStore {
    public func insertCode(_ code: AuthorizationCode) async throws {
        let data = try code.storedJSON()
        _ = try await rows("""
            INSERT INTO authorization_codes (code_hash, data, expires_at) VALUES (\(code.hash), \(data), \(code.expiresAt.pg))
            """)
    }

    public func code(hash: String) async throws -> AuthorizationCode? {
        guard let row = try await rows("SELECT data FROM authorization_codes WHERE code_hash = \(hash)").first else { return nil }
        return try AuthorizationCode.fromStoredJSON(row.decode(Data.self))
    }

    /// A conditional `UPDATE`: concurrent redemptions queue on the row lock and re-check
    /// `used_at IS NULL` after the winner commits, so exactly one sees its row come back.
    public func redeemCode(hash: String, at date: Date, familyId: String) async throws -> CodeRedemption {
        if let row = try await rows("""
            UPDATE authorization_codes SET used_at = \(date.pg), family_id = \(familyId)
            WHERE code_hash = \(hash) AND used_at IS NULL RETURNING data
            """).first {
            return .redeemed(try AuthorizationCode.fromStoredJSON(row.decode(Data.self)))
        }
        return try await notRedeemed(hash: hash)
    }

    /// The same conditional `UPDATE`, and the family inserted in its transaction when it won.
    public func redeemCode(hash: String, at date: Date, starting family: TokenFamily) async throws -> CodeRedemption {
        let redeemed = try await transaction { [logger] connection -> Data? in
            let rows = try await connection.query("""
                UPDATE authorization_codes SET used_at = \(date.pg), family_id = \(family.id)
                WHERE code_hash = \(hash) AND used_at IS NULL RETURNING data
                """, logger: logger).collect()
            guard let row = rows.first else { return nil }
            try await Self.insert(family, on: connection, logger: logger)
            return try row.decode(Data.self)
        }
        if let redeemed { return .redeemed(try AuthorizationCode.fromStoredJSON(redeemed)) }
        return try await notRedeemed(hash: hash)
    }

    /// A code this call did not redeem: unknown, or used before (with the family it started).
    private func notRedeemed(hash: String) async throws -> CodeRedemption {
        guard let row = try await rows("SELECT data, family_id FROM authorization_codes WHERE code_hash = \(hash)").first else {
            return .notFound
        }
        let (data, family) = try row.decode((Data, String?).self)
        return .alreadyUsed(try AuthorizationCode.fromStoredJSON(data), familyId: family)
    }
}
