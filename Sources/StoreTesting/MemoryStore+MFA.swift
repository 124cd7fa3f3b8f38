import Foundation
import StoreContracts

extension MemoryStore: MFAStore {
    public func mfaEnrolment(subject: String) async throws -> MFAEnrolment? {
        try read { $0.enrolment(subject: subject) }
    }

    /// Replaces the user's app, and the recovery codes when given.
    public func enrolTOTP(_ factor: TOTPFactor, recoveryCodeHashes: [String]?, at date: Date) async throws {
        try transaction { tables in
            tables.totpFactors[factor.owner.subject] = factor
            if let recoveryCodeHashes { tables.recoveryCodes[factor.owner.subject] = Set(recoveryCodeHashes) }
        }
    }

    public func acceptTOTPStep(subject: String, step: Int64, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard var factor = tables.totpFactors[subject], factor.lastStep < step else { return false }
            factor.lastStep = step
            factor.lastUsedAt = date
            tables.totpFactors[subject] = factor
            return true
        }
    }

    public func enrolPasskey(_ credential: PasskeyCredential, recoveryCodeHashes: [String]?, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard tables.passkeys[credential.credentialId] == nil else { return false }
            tables.passkeys[credential.credentialId] = credential
            if let recoveryCodeHashes { tables.recoveryCodes[credential.owner.subject] = Set(recoveryCodeHashes) }
            return true
        }
    }

    public func passkey(credentialId: String) async throws -> PasskeyCredential? {
        try read { $0.passkeys[credentialId] }
    }

    public func updatePasskeyCounter(credentialId: String, from old: Int64, to new: Int64, at date: Date) async throws -> Bool {
        try transaction { tables in
            guard var credential = tables.passkeys[credentialId], credential.signCount == old else { return false }
            credential.signCount = new
            credential.lastUsedAt = date
            tables.passkeys[credentialId] = credential
            return true
        }
    }

    public func useRecoveryCode(subject: String, hash: String) async throws -> Bool {
        try transaction { $0.recoveryCodes[subject]?.remove(hash) != nil }
    }

    public func replaceRecoveryCodes(subject: String, hashes: [String], at date: Date) async throws {
        try transaction { $0.recoveryCodes[subject] = Set(hashes) }
    }

    /// Users with an app or a passkey at `authServiceId`, by user id then subject (byte order);
    /// `user` matches the user id without regard to case (as in `liveSessions`), or the subject.
    public func mfaEnrolments(authServiceId: String, user: String?, limit: Int) async throws -> [MFAEnrolment] {
        try read { tables in
            let owners = tables.totpFactors.values.map(\.owner) + tables.passkeys.values.map(\.owner)
            let matching = Set(owners.filter { owner in
                owner.authServiceId == authServiceId
                    && (user.map { owner.userId.lowercased() == $0.lowercased() || owner.subject == $0 } ?? true)
            }.map { OwnerKey(userId: $0.userId, subject: $0.subject) })
            return matching.sorted().prefix(max(0, limit)).compactMap { tables.enrolment(subject: $0.subject) }
        }
    }

    public func removeMFA(subject: String) async throws -> MFARemoval {
        try transaction { tables in
            let passkeys = tables.passkeys.values.filter { $0.owner.subject == subject }.map(\.credentialId)
            for id in passkeys { tables.passkeys[id] = nil }
            let totp = tables.totpFactors.removeValue(forKey: subject) == nil ? 0 : 1
            let codes = tables.recoveryCodes.removeValue(forKey: subject)?.count ?? 0
            return MFARemoval(totp: totp, passkeys: passkeys.count, recoveryCodes: codes)
        }
    }

    public func removeTOTP(subject: String) async throws -> Bool {
        try transaction { $0.totpFactors.removeValue(forKey: subject) != nil }
    }

    public func removePasskey(subject: String, credentialId: String) async throws -> Bool {
        try transaction { tables in
            guard tables.passkeys[credentialId]?.owner.subject == subject else { return false }
            tables.passkeys[credentialId] = nil
            return true
        }
    }

    public func renamePasskey(subject: String, credentialId: String, name: String) async throws -> Bool {
        try transaction { tables in
            guard tables.passkeys[credentialId]?.owner.subject == subject else { return false }
            tables.passkeys[credentialId]?.name = name
            return true
        }
    }

    public func setSessionAMR(sessionId: String, amr: [String]) async throws {
        try transaction { tables in tables.sessions[sessionId]?.amr = amr }
    }
}

/// A user among enrolments, ordered as `mfaEnrolments` lists them: user id, then subject, by bytes.
private struct OwnerKey: Hashable, Comparable {
    var userId: String
    var subject: String

    static func < (left: OwnerKey, right: OwnerKey) -> Bool {
        left.userId != right.userId ? left.userId.precedesInBytes(right.userId) : left.subject.precedesInBytes(right.subject)
    }
}

extension MemoryTables {
    /// The user's factors and how many recovery codes are left; nil when there is nothing. Codes
    /// without a factor (a factor removed since) come with an owner known by subject only.
    func enrolment(subject: String) -> MFAEnrolment? {
        let totp = totpFactors[subject]
        let keys = passkeys.values.filter { $0.owner.subject == subject }.sorted { left, right in
            left.createdAt.isBefore(right.createdAt, orElse: left.credentialId.precedesInBytes(right.credentialId))
        }
        let codes = recoveryCodes[subject]?.count ?? 0
        guard let owner = totp?.owner ?? keys.first?.owner else {
            guard codes > 0 else { return nil }
            return MFAEnrolment(owner: MFAOwner(subject: subject, namespace: "", authServiceId: "", userId: ""), totp: nil, passkeys: [],
                                recoveryCodesLeft: codes)
        }
        return MFAEnrolment(owner: owner, totp: totp, passkeys: keys, recoveryCodesLeft: codes)
    }
}
