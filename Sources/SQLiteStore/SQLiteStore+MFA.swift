import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: MFAStore {
    public func mfaEnrolment(subject: String) async throws -> MFAEnrolment? {
        try await pool.read { db in try Self.enrolment(subject: subject, in: db) }
    }

    public func enrolTOTP(_ factor: TOTPFactor, recoveryCodeHashes: [String]?, at date: Date) async throws {
        try await write { db in
            let owner = factor.owner
            try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO mfa_totp (subject, namespace, auth_service_id, user_id, secret, last_step, created_at, last_used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [owner.subject, owner.namespace, owner.authServiceId, owner.userId, factor.sealedSecret,
                                 factor.lastStep, factor.createdAt.sql, factor.lastUsedAt?.sql])
            if let recoveryCodeHashes { try Self.replaceCodes(subject: owner.subject, hashes: recoveryCodeHashes, at: date, in: db) }
        }
    }

    public func acceptTOTPStep(subject: String, step: Int64, at date: Date) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE mfa_totp SET last_step = ?, last_used_at = ? WHERE subject = ? AND last_step < ?")
                .execute(arguments: [step, date.sql, subject, step])
            return db.changesCount == 1
        }
    }

    public func enrolPasskey(_ credential: PasskeyCredential, recoveryCodeHashes: [String]?, at date: Date) async throws -> Bool {
        try await write { db in
            let owner = credential.owner
            try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO mfa_passkeys (credential_id, subject, namespace, auth_service_id, user_id, name, public_key,
                    sign_count, transports, created_at, last_used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [credential.credentialId, owner.subject, owner.namespace, owner.authServiceId, owner.userId,
                                 credential.name, credential.publicKey, credential.signCount,
                                 credential.transports.joined(separator: " "), credential.createdAt.sql, credential.lastUsedAt?.sql])
            guard db.changesCount == 1 else { return false }
            if let recoveryCodeHashes { try Self.replaceCodes(subject: owner.subject, hashes: recoveryCodeHashes, at: date, in: db) }
            return true
        }
    }

    public func passkey(credentialId: String) async throws -> PasskeyCredential? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM mfa_passkeys WHERE credential_id = ?"),
                arguments: [credentialId])
                .map(Self.passkey(from:))
        }
    }

    public func updatePasskeyCounter(credentialId: String, from old: Int64, to new: Int64, at date: Date) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE mfa_passkeys SET sign_count = ?, last_used_at = ? WHERE credential_id = ? AND sign_count = ?")
                .execute(arguments: [new, date.sql, credentialId, old])
            return db.changesCount == 1
        }
    }

    public func useRecoveryCode(subject: String, hash: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM mfa_recovery_codes WHERE subject = ? AND code_hash = ?")
                .execute(arguments: [subject, hash])
            return db.changesCount == 1
        }
    }

    public func replaceRecoveryCodes(subject: String, hashes: [String], at date: Date) async throws {
        try await write { db in try Self.replaceCodes(subject: subject, hashes: hashes, at: date, in: db) }
    }

    public func mfaEnrolments(authServiceId: String, user: String?, limit: Int) async throws -> [MFAEnrolment] {
        try await pool.read { db in
            let subjects = try String.fetchAll(db.cachedStatement(sql: """
                SELECT subject FROM (
                    SELECT subject, user_id FROM mfa_totp WHERE auth_service_id = ?
                    UNION SELECT subject, user_id FROM mfa_passkeys WHERE auth_service_id = ?)
                WHERE ? IS NULL OR lower(user_id) = lower(?) OR subject = ?
                ORDER BY user_id, subject LIMIT ?
                """), arguments: [authServiceId, authServiceId, user, user, user, limit])
            return try subjects.compactMap { try Self.enrolment(subject: $0, in: db) }
        }
    }

    public func removeMFA(subject: String) async throws -> MFARemoval {
        try await write { db in
            var removal = MFARemoval()
            try db.cachedStatement(sql: "DELETE FROM mfa_totp WHERE subject = ?").execute(arguments: [subject])
            removal.totp = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM mfa_passkeys WHERE subject = ?").execute(arguments: [subject])
            removal.passkeys = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM mfa_recovery_codes WHERE subject = ?").execute(arguments: [subject])
            removal.recoveryCodes = db.changesCount
            return removal
        }
    }

    public func removeTOTP(subject: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM mfa_totp WHERE subject = ?").execute(arguments: [subject])
            return db.changesCount == 1
        }
    }

    public func removePasskey(subject: String, credentialId: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM mfa_passkeys WHERE subject = ? AND credential_id = ?")
                .execute(arguments: [subject, credentialId])
            return db.changesCount == 1
        }
    }

    public func renamePasskey(subject: String, credentialId: String, name: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE mfa_passkeys SET name = ? WHERE subject = ? AND credential_id = ?")
                .execute(arguments: [name, subject, credentialId])
            return db.changesCount == 1
        }
    }

    public func setSessionAMR(sessionId: String, amr: [String]) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE sessions SET amr = ? WHERE id = ?")
                .execute(arguments: [LoginSession.amrColumn(amr), sessionId])
        }
    }

    static func replaceCodes(subject: String, hashes: [String], at date: Date, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM mfa_recovery_codes WHERE subject = ?").execute(arguments: [subject])
        for hash in hashes {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO mfa_recovery_codes (subject, code_hash, created_at) VALUES (?, ?, ?)")
                .execute(arguments: [subject, hash, date.sql])
        }
    }

    static func enrolment(subject: String, in db: Database) throws -> MFAEnrolment? {
        let totpRow = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM mfa_totp WHERE subject = ?"), arguments: [subject])
        let passkeys = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM mfa_passkeys WHERE subject = ? ORDER BY created_at, credential_id"),
                                        arguments: [subject]).map(passkey(from:))
        let codes = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM mfa_recovery_codes WHERE subject = ?"),
            arguments: [subject]) ?? 0
        let totp = totpRow.map { row in
            TOTPFactor(owner: owner(from: row), sealedSecret: row["secret"], lastStep: row["last_step"],
                       createdAt: Date(timeIntervalSince1970: row["created_at"]), lastUsedAt: Date(sql: row["last_used_at"]))
        }
        guard let owner = totp?.owner ?? passkeys.first?.owner else {
            return codes > 0 ? MFAEnrolment(owner: MFAOwner(subject: subject, namespace: "", authServiceId: "", userId: ""),
                                            totp: nil, passkeys: [], recoveryCodesLeft: codes) : nil
        }
        return MFAEnrolment(owner: owner, totp: totp, passkeys: passkeys, recoveryCodesLeft: codes)
    }

    static func owner(from row: Row) -> MFAOwner {
        MFAOwner(subject: row["subject"], namespace: row["namespace"], authServiceId: row["auth_service_id"], userId: row["user_id"])
    }

    static func passkey(from row: Row) -> PasskeyCredential {
        let transports: String = row["transports"]
        return PasskeyCredential(credentialId: row["credential_id"], owner: owner(from: row), name: row["name"],
                                 publicKey: row["public_key"], signCount: row["sign_count"],
                                 transports: transports.split(separator: " ").map(String.init),
                                 createdAt: Date(timeIntervalSince1970: row["created_at"]), lastUsedAt: Date(sql: row["last_used_at"]))
    }
}
