import Foundation
import IdentityCore
import OAuthEngine
import StoreContracts
import Testing

/// Second factors on every backend (docs/mfa.md): one winner for a step, a counter, a recovery code.
@Suite("Store conformance: second factors")
struct MFAStoreTests {
    static let now = StoreConformanceTests.now

    static func owner(_ user: String, service: String = "svc") -> MFAOwner {
        MFAOwner(subject: "sub-\(service)-\(user)", namespace: "env:kid/\(service)", authServiceId: service, userId: user)
    }

    /// Enrols `secret` as `user`'s authenticator app at `service` of the MFA fixture, as enrolment does.
    static func enrolTOTP(_ broker: TestBroker, service: String, user: String, secret: [UInt8]) async throws {
        let namespace = "env:\(MFAFixture.appKey)/\(service)"
        let subject = SubjectIdentifier.make(namespace: namespace, userId: user)
        let sealed = try broker.engine.vault.seal(Data(secret), VaultBindings.totp(subject: subject, namespace: namespace))
        try await broker.engine.storage.mfa.enrolTOTP(
            TOTPFactor(owner: MFAOwner(subject: subject, namespace: namespace, authServiceId: service, userId: user),
                       sealedSecret: sealed, lastStep: 0, createdAt: broker.clock.now()),
            recoveryCodeHashes: nil, at: broker.clock.now())
    }

    @Test("authenticator app: enrol with codes in one write, each step accepted once by exactly one of 10 racers",
          arguments: StoreBackend.allCases)
    func totp(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let alice = Self.owner("alice")
        #expect(try await store.mfaEnrolment(subject: alice.subject) == nil)
        try await store.enrolTOTP(TOTPFactor(owner: alice, sealedSecret: Data([1, 2]), lastStep: 100, createdAt: Self.now),
                                  recoveryCodeHashes: (0..<10).map { "h\($0)" }, at: Self.now)
        let enrolment = try must(try await store.mfaEnrolment(subject: alice.subject))
        #expect(enrolment.owner == alice && enrolment.totp?.sealedSecret == Data([1, 2]) && enrolment.recoveryCodesLeft == 10)
        #expect(try await !store.acceptTOTPStep(subject: alice.subject, step: 100, at: Self.now), "the enrolment's step is spent")
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { try await store.acceptTOTPStep(subject: alice.subject, step: 101, at: Self.now) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        #expect(try await !store.acceptTOTPStep(subject: alice.subject, step: 100, at: Self.now), "never an earlier step")
        #expect(try await store.useRecoveryCode(subject: alice.subject, hash: "h3"))
        #expect(try await !store.useRecoveryCode(subject: alice.subject, hash: "h3"))
        #expect(try await !store.useRecoveryCode(subject: "someone-else", hash: "h4"))
        #expect(try await store.mfaEnrolment(subject: alice.subject)?.recoveryCodesLeft == 9)
        try await store.replaceRecoveryCodes(subject: alice.subject, hashes: ["n1", "n2"], at: Self.now)
        #expect(try await store.mfaEnrolment(subject: alice.subject)?.recoveryCodesLeft == 2)
        #expect(try await store.sealedValues(.mfaTOTP, after: nil, limit: 10).map(\.id) == [alice.subject])
        try await store.close()
    }

    @Test("passkeys: a credential id registers once, the counter moves by compare-and-swap; list and reset by auth service and user",
          arguments: StoreBackend.allCases)
    func passkeysAndReset(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let bob = Self.owner("Bob")
        let key = PasskeyCredential(credentialId: "cred-1", owner: bob, name: "Laptop", publicKey: Data([9, 9]), signCount: 5,
                                    transports: ["internal", "hybrid"], createdAt: Self.now)
        #expect(try await store.enrolPasskey(key, recoveryCodeHashes: ["r1"], at: Self.now))
        var other = key
        other.owner = Self.owner("mallory")
        #expect(try await !store.enrolPasskey(other, recoveryCodeHashes: ["x"], at: Self.now), "an existing id is refused")
        #expect(try await store.mfaEnrolment(subject: other.owner.subject) == nil, "nothing half-enrolled")
        #expect(try await store.passkey(credentialId: "cred-1") == key)
        #expect(try await store.updatePasskeyCounter(credentialId: "cred-1", from: 5, to: 6, at: Self.now))
        #expect(try await !store.updatePasskeyCounter(credentialId: "cred-1", from: 5, to: 7, at: Self.now))
        #expect(try await store.passkey(credentialId: "cred-1")?.signCount == 6)

        try await store.enrolTOTP(TOTPFactor(owner: Self.owner("alice"), sealedSecret: Data([1]), lastStep: 0, createdAt: Self.now),
                                  recoveryCodeHashes: nil, at: Self.now)
        try await store.enrolTOTP(TOTPFactor(owner: Self.owner("alice", service: "other"), sealedSecret: Data([1]), lastStep: 0,
                                             createdAt: Self.now), recoveryCodeHashes: nil, at: Self.now)
        #expect(try await store.mfaEnrolments(authServiceId: "svc", user: nil, limit: 10).map(\.owner.userId) == ["Bob", "alice"])
        #expect(try await store.mfaEnrolments(authServiceId: "svc", user: "bob", limit: 10).count == 1)
        let removal = try await store.removeMFA(subject: bob.subject)
        #expect(removal == MFARemoval(totp: 0, passkeys: 1, recoveryCodes: 1))
        #expect(try await store.mfaEnrolment(subject: bob.subject) == nil)
        #expect(try await store.mfaEnrolments(authServiceId: "other", user: "ALICE", limit: 10).count == 1)

        let session = StoreConformanceTests.session("amr-1")
        try await store.insertSession(session)
        #expect(try await store.session(id: "amr-1")?.amr == [])
        try await store.setSessionAMR(sessionId: "amr-1", amr: ["pwd", "otp", "mfa"])
        #expect(try await store.session(id: "amr-1")?.amr == ["pwd", "otp", "mfa"])
        try await store.close()
    }
}
