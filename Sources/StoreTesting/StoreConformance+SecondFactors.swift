import Foundation
import StoreContracts
import Testing

/// Second factors (docs/mfa.md): one winner for a time step, a passkey counter, a recovery code;
/// the account page changes one factor of one user at a time.
extension StoreConformance {
    static func authenticatorApp(_ roles: StoreRoles) async throws {
        let (mfa, now) = (roles.mfa, StoreFixtures.now)
        let alice = StoreFixtures.owner("alice")
        #expect(try await mfa.mfaEnrolment(subject: alice.subject) == nil)
        try await mfa.enrolTOTP(TOTPFactor(owner: alice, sealedSecret: Data([1, 2]), lastStep: 100, createdAt: now),
                                recoveryCodeHashes: (0..<10).map { "h\($0)" }, at: now)
        let enrolment = try #require(try await mfa.mfaEnrolment(subject: alice.subject))
        #expect(enrolment.owner == alice && enrolment.totp?.sealedSecret == Data([1, 2]) && enrolment.recoveryCodesLeft == 10)
        #expect(try await !mfa.acceptTOTPStep(subject: alice.subject, step: 100, at: now), "the enrolment's step is spent")
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { try await mfa.acceptTOTPStep(subject: alice.subject, step: 101, at: now) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try await mfa.mfaEnrolment(subject: alice.subject)?.totp?.lastUsedAt == now)
        #expect(try await !mfa.acceptTOTPStep(subject: alice.subject, step: 100, at: now), "never an earlier step")
        #expect(try await mfa.useRecoveryCode(subject: alice.subject, hash: "h3"))
        #expect(try await !mfa.useRecoveryCode(subject: alice.subject, hash: "h3"))
        #expect(try await !mfa.useRecoveryCode(subject: "someone-else", hash: "h4"))
        #expect(try await mfa.mfaEnrolment(subject: alice.subject)?.recoveryCodesLeft == 9)
        try await mfa.replaceRecoveryCodes(subject: alice.subject, hashes: ["n1", "n2"], at: now)
        #expect(try await mfa.mfaEnrolment(subject: alice.subject)?.recoveryCodesLeft == 2)
        #expect(try await !mfa.useRecoveryCode(subject: alice.subject, hash: "h4"), "replaced codes are gone")
        #expect(try await roles.sealed.sealedValues(.mfaTOTP, after: nil, limit: 10).map(\.id) == [alice.subject])
    }

    static func passkeysAndReset(_ roles: StoreRoles) async throws {
        let (mfa, now) = (roles.mfa, StoreFixtures.now)
        let bob = StoreFixtures.owner("Bob")
        let key = PasskeyCredential(credentialId: "cred-1", owner: bob, name: "Laptop", publicKey: Data([9, 9]), signCount: 5,
                                    transports: ["internal", "hybrid"], createdAt: now)
        #expect(try await mfa.enrolPasskey(key, recoveryCodeHashes: ["r1"], at: now))
        var other = key
        other.owner = StoreFixtures.owner("mallory")
        #expect(try await !mfa.enrolPasskey(other, recoveryCodeHashes: ["x"], at: now), "an existing id is refused")
        #expect(try await mfa.mfaEnrolment(subject: other.owner.subject) == nil, "nothing half-enrolled")
        #expect(try await mfa.passkey(credentialId: "cred-1") == key)
        #expect(try await mfa.updatePasskeyCounter(credentialId: "cred-1", from: 5, to: 6, at: now))
        #expect(try await !mfa.updatePasskeyCounter(credentialId: "cred-1", from: 5, to: 7, at: now))
        #expect(try await mfa.passkey(credentialId: "cred-1")?.signCount == 6)

        try await mfa.enrolTOTP(TOTPFactor(owner: StoreFixtures.owner("alice"), sealedSecret: Data([1]), lastStep: 0, createdAt: now),
                                recoveryCodeHashes: nil, at: now)
        try await mfa.enrolTOTP(TOTPFactor(owner: StoreFixtures.owner("alice", service: "other"), sealedSecret: Data([1]), lastStep: 0,
                                           createdAt: now), recoveryCodeHashes: nil, at: now)
        #expect(try await mfa.mfaEnrolments(authServiceId: "svc", user: nil, limit: 10).map(\.owner.userId) == ["Bob", "alice"])
        #expect(try await mfa.mfaEnrolments(authServiceId: "svc", user: nil, limit: 1).map(\.owner.userId) == ["Bob"])
        #expect(try await mfa.mfaEnrolments(authServiceId: "svc", user: "bob", limit: 10).count == 1)
        let removal = try await mfa.removeMFA(subject: bob.subject)
        #expect(removal == MFARemoval(totp: 0, passkeys: 1, recoveryCodes: 1))
        #expect(try await mfa.mfaEnrolment(subject: bob.subject) == nil)
        #expect(try await mfa.mfaEnrolments(authServiceId: "other", user: "ALICE", limit: 10).count == 1)

        let session = StoreFixtures.session("amr-1")
        try await roles.sessions.insertSession(session)
        #expect(try await roles.sessions.session(id: "amr-1")?.amr == [])
        try await mfa.setSessionAMR(sessionId: "amr-1", amr: ["pwd", "otp", "mfa"])
        #expect(try await roles.sessions.session(id: "amr-1")?.amr == ["pwd", "otp", "mfa"])
    }

    static func accountFactorChanges(_ roles: StoreRoles) async throws {
        let (mfa, now) = (roles.mfa, StoreFixtures.now)
        let alice = StoreFixtures.owner("alice"), bob = StoreFixtures.owner("bob")
        try await mfa.enrolTOTP(TOTPFactor(owner: alice, sealedSecret: Data([1]), lastStep: 1, createdAt: now),
                                recoveryCodeHashes: ["h1", "h2"], at: now)
        for (id, owner) in [("a-1", alice), ("a-2", alice), ("b-1", bob)] {
            let key = PasskeyCredential(credentialId: id, owner: owner, name: "Key \(id)", publicKey: Data([7]), signCount: 0,
                                        transports: [], createdAt: now)
            #expect(try await mfa.enrolPasskey(key, recoveryCodeHashes: nil, at: now))
        }
        #expect(try await !mfa.removePasskey(subject: alice.subject, credentialId: "b-1"), "bob's passkey is not alice's to remove")
        #expect(try await !mfa.renamePasskey(subject: alice.subject, credentialId: "b-1", name: "Mine now"))
        #expect(try await mfa.passkey(credentialId: "b-1")?.name == "Key b-1")
        #expect(try await mfa.renamePasskey(subject: alice.subject, credentialId: "a-1", name: "Phone"))
        #expect(try await mfa.removePasskey(subject: alice.subject, credentialId: "a-2"))
        #expect(try await !mfa.removePasskey(subject: alice.subject, credentialId: "a-2"), "already gone")
        #expect(try await !mfa.removeTOTP(subject: bob.subject), "bob has no authenticator app")
        #expect(try await mfa.removeTOTP(subject: alice.subject))
        #expect(try await !mfa.removeTOTP(subject: alice.subject))
        let left = try #require(try await mfa.mfaEnrolment(subject: alice.subject))
        #expect(left.totp == nil && left.passkeys.map(\.name) == ["Phone"] && left.recoveryCodesLeft == 2)
        #expect(try await mfa.mfaEnrolment(subject: bob.subject)?.passkeys.count == 1)
        // Recovery codes outlive the last factor: the enrolment is known by its subject alone.
        #expect(try await mfa.removePasskey(subject: alice.subject, credentialId: "a-1"))
        let codesOnly = try #require(try await mfa.mfaEnrolment(subject: alice.subject))
        #expect(codesOnly.owner.subject == alice.subject && !codesOnly.hasFactor && codesOnly.recoveryCodesLeft == 2)
    }
}
