import Foundation
import PostgresNIO
import Logging
import StoreContracts

extension PostgresStore: MFAStore {
    static let passkeyColumns = """
        credential_id, subject, namespace, auth_service_id, user_id, name, public_key, sign_count, transports, created_at, last_used_at
        """

    public func mfaEnrolment(subject: String) async throws -> MFAEnrolment? {
        let totpRows = try await rows("""
            SELECT subject, namespace, auth_service_id, user_id, secret, last_step, created_at, last_used_at
            FROM mfa_totp WHERE subject = \(subject)
            """)
        let passkeys = try await rows("""
            SELECT \(unescaped: Self.passkeyColumns) FROM mfa_passkeys WHERE subject = \(subject) ORDER BY created_at, credential_id
            """).map { try Self.passkey(from: $0.makeRandomAccess()) }
        let codes = try await rows("SELECT count(*) FROM mfa_recovery_codes WHERE subject = \(subject)").first?.decode(Int.self) ?? 0
        let totp = try totpRows.first.map { row -> TOTPFactor in
            let columns = row.makeRandomAccess()
            return TOTPFactor(owner: try Self.owner(from: columns), sealedSecret: try columns[4].decode(Data.self),
                              lastStep: try columns[5].decode(Int64.self),
                              createdAt: Date(timeIntervalSince1970: try columns[6].decode(Double.self)),
                              lastUsedAt: Date(pg: try columns[7].decode(Double?.self)))
        }
        guard let owner = totp?.owner ?? passkeys.first?.owner else {
            return codes > 0 ? MFAEnrolment(owner: MFAOwner(subject: subject, namespace: "", authServiceId: "", userId: ""),
                                            totp: nil, passkeys: [], recoveryCodesLeft: codes) : nil
        }
        return MFAEnrolment(owner: owner, totp: totp, passkeys: passkeys, recoveryCodesLeft: codes)
    }

    public func enrolTOTP(_ factor: TOTPFactor, recoveryCodeHashes: [String]?, at date: Date) async throws {
        let owner = factor.owner
        try await transaction { [logger] connection in
            try await connection.query("""
                INSERT INTO mfa_totp (subject, namespace, auth_service_id, user_id, secret, last_step, created_at, last_used_at)
                VALUES (\(owner.subject), \(owner.namespace), \(owner.authServiceId), \(owner.userId), \(factor.sealedSecret),
                    \(factor.lastStep), \(factor.createdAt.pg), \(factor.lastUsedAt?.pg))
                ON CONFLICT (subject) DO UPDATE SET namespace = EXCLUDED.namespace, auth_service_id = EXCLUDED.auth_service_id,
                    user_id = EXCLUDED.user_id, secret = EXCLUDED.secret, last_step = EXCLUDED.last_step,
                    created_at = EXCLUDED.created_at, last_used_at = EXCLUDED.last_used_at
                """, logger: logger)
            if let recoveryCodeHashes {
                try await Self.replaceCodes(subject: owner.subject, hashes: recoveryCodeHashes, at: date, on: connection, logger: logger)
            }
        }
    }

    public func acceptTOTPStep(subject: String, step: Int64, at date: Date) async throws -> Bool {
        try await rows("""
            UPDATE mfa_totp SET last_step = \(step), last_used_at = \(date.pg)
            WHERE subject = \(subject) AND last_step < \(step) RETURNING 1
            """).count == 1
    }

    public func enrolPasskey(_ credential: PasskeyCredential, recoveryCodeHashes: [String]?, at date: Date) async throws -> Bool {
        let owner = credential.owner
        return try await transaction { [logger] connection in
            let inserted = try await connection.query("""
                INSERT INTO mfa_passkeys (\(unescaped: Self.passkeyColumns))
                VALUES (\(credential.credentialId), \(owner.subject), \(owner.namespace), \(owner.authServiceId), \(owner.userId),
                    \(credential.name), \(credential.publicKey), \(credential.signCount),
                    \(credential.transports.joined(separator: " ")), \(credential.createdAt.pg), \(credential.lastUsedAt?.pg))
                ON CONFLICT (credential_id) DO NOTHING RETURNING 1
                """, logger: logger).collect().count == 1
            guard inserted else { return false }
            if let recoveryCodeHashes {
                try await Self.replaceCodes(subject: owner.subject, hashes: recoveryCodeHashes, at: date, on: connection, logger: logger)
            }
            return true
        }
    }

    public func passkey(credentialId: String) async throws -> PasskeyCredential? {
        try await rows("SELECT \(unescaped: Self.passkeyColumns) FROM mfa_passkeys WHERE credential_id = \(credentialId)")
            .first.map { try Self.passkey(from: $0.makeRandomAccess()) }
    }

    public func updatePasskeyCounter(credentialId: String, from old: Int64, to new: Int64, at date: Date) async throws -> Bool {
        try await rows("""
            UPDATE mfa_passkeys SET sign_count = \(new), last_used_at = \(date.pg)
            WHERE credential_id = \(credentialId) AND sign_count = \(old) RETURNING 1
            """).count == 1
    }

    public func useRecoveryCode(subject: String, hash: String) async throws -> Bool {
        try await rows("DELETE FROM mfa_recovery_codes WHERE subject = \(subject) AND code_hash = \(hash) RETURNING 1").count == 1
    }

    public func replaceRecoveryCodes(subject: String, hashes: [String], at date: Date) async throws {
        try await transaction { [logger] connection in
            try await Self.replaceCodes(subject: subject, hashes: hashes, at: date, on: connection, logger: logger)
        }
    }

    public func mfaEnrolments(authServiceId: String, user: String?, limit: Int) async throws -> [MFAEnrolment] {
        let subjects = try await rows("""
            SELECT subject FROM (
                SELECT subject, user_id FROM mfa_totp WHERE auth_service_id = \(authServiceId)
                UNION SELECT subject, user_id FROM mfa_passkeys WHERE auth_service_id = \(authServiceId)) AS owners
            WHERE \(user)::TEXT IS NULL OR lower(user_id) = lower(\(user)) OR subject = \(user)
            ORDER BY user_id, subject LIMIT \(limit)
            """).map { try $0.decode(String.self) }
        var result: [MFAEnrolment] = []
        for subject in subjects {
            if let enrolment = try await mfaEnrolment(subject: subject) { result.append(enrolment) }
        }
        return result
    }

    public func removeMFA(subject: String) async throws -> MFARemoval {
        try await transaction { [logger] connection in
            func count(_ query: PostgresQuery) async throws -> Int {
                try await connection.query(query, logger: logger).collect().count
            }
            return MFARemoval(
                totp: try await count("DELETE FROM mfa_totp WHERE subject = \(subject) RETURNING 1"),
                passkeys: try await count("DELETE FROM mfa_passkeys WHERE subject = \(subject) RETURNING 1"),
                recoveryCodes: try await count("DELETE FROM mfa_recovery_codes WHERE subject = \(subject) RETURNING 1"))
        }
    }

    public func removeTOTP(subject: String) async throws -> Bool {
        try await rows("DELETE FROM mfa_totp WHERE subject = \(subject) RETURNING 1").count == 1
    }

    public func removePasskey(subject: String, credentialId: String) async throws -> Bool {
        try await rows("DELETE FROM mfa_passkeys WHERE subject = \(subject) AND credential_id = \(credentialId) RETURNING 1").count == 1
    }

    public func renamePasskey(subject: String, credentialId: String, name: String) async throws -> Bool {
        try await rows("""
            UPDATE mfa_passkeys SET name = \(name) WHERE subject = \(subject) AND credential_id = \(credentialId) RETURNING 1
            """).count == 1
    }

    public func setSessionAMR(sessionId: String, amr: [String]) async throws {
        _ = try await rows("UPDATE sessions SET amr = \(LoginSession.amrColumn(amr)) WHERE id = \(sessionId)")
    }

    static func replaceCodes(subject: String, hashes: [String], at date: Date, on connection: PostgresConnection,
                             logger: Logger) async throws {
        try await connection.query("DELETE FROM mfa_recovery_codes WHERE subject = \(subject)", logger: logger)
        for hash in hashes {
            try await connection.query("""
                INSERT INTO mfa_recovery_codes (subject, code_hash, created_at) VALUES (\(subject), \(hash), \(date.pg))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    static func owner(from row: PostgresRandomAccessRow, at offset: Int = 0) throws -> MFAOwner {
        MFAOwner(subject: try row[offset].decode(String.self), namespace: try row[offset + 1].decode(String.self),
                 authServiceId: try row[offset + 2].decode(String.self), userId: try row[offset + 3].decode(String.self))
    }

    static func passkey(from row: PostgresRandomAccessRow) throws -> PasskeyCredential {
        PasskeyCredential(
            credentialId: try row[0].decode(String.self), owner: try owner(from: row, at: 1), name: try row[5].decode(String.self),
            publicKey: try row[6].decode(Data.self), signCount: try row[7].decode(Int64.self),
            transports: try row[8].decode(String.self).split(separator: " ").map(String.init),
            createdAt: Date(timeIntervalSince1970: try row[9].decode(Double.self)),
            lastUsedAt: Date(pg: try row[10].decode(Double?.self)))
    }
}
