import Foundation
import StoreContracts
import Testing

/// What the account page changes in storage (docs/account.md), on every backend: one factor of one
/// user at a time, and a refresh noting the session's last use in the rotation's own write.
@Suite("Store conformance: the account page")
struct AccountStoreTests {
    static let now = StoreConformanceTests.now

    @Test("remove the authenticator app, remove and rename one passkey: only the owner's, other users' ids change nothing",
          arguments: StoreBackend.allCases)
    func factorChanges(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let alice = MFAStoreTests.owner("alice")
        let bob = MFAStoreTests.owner("bob")
        try await store.enrolTOTP(TOTPFactor(owner: alice, sealedSecret: Data([1]), lastStep: 1, createdAt: Self.now),
                                  recoveryCodeHashes: ["h1", "h2"], at: Self.now)
        for (id, owner) in [("a-1", alice), ("a-2", alice), ("b-1", bob)] {
            let key = PasskeyCredential(credentialId: id, owner: owner, name: "Key \(id)", publicKey: Data([7]), signCount: 0,
                                        transports: [], createdAt: Self.now)
            #expect(try await store.enrolPasskey(key, recoveryCodeHashes: nil, at: Self.now))
        }
        #expect(try await !store.removePasskey(subject: alice.subject, credentialId: "b-1"), "bob's passkey is not alice's to remove")
        #expect(try await !store.renamePasskey(subject: alice.subject, credentialId: "b-1", name: "Mine now"))
        #expect(try await store.passkey(credentialId: "b-1")?.name == "Key b-1")
        #expect(try await store.renamePasskey(subject: alice.subject, credentialId: "a-1", name: "Phone"))
        #expect(try await store.removePasskey(subject: alice.subject, credentialId: "a-2"))
        #expect(try await !store.removePasskey(subject: alice.subject, credentialId: "a-2"), "already gone")
        #expect(try await !store.removeTOTP(subject: bob.subject), "bob has no authenticator app")
        #expect(try await store.removeTOTP(subject: alice.subject))
        #expect(try await !store.removeTOTP(subject: alice.subject))
        let left = try must(try await store.mfaEnrolment(subject: alice.subject))
        #expect(left.totp == nil && left.passkeys.map(\.name) == ["Phone"] && left.recoveryCodesLeft == 2)
        #expect(try await store.mfaEnrolment(subject: bob.subject)?.passkeys.count == 1)
        try await store.close()
    }

    @Test("a refresh (rotation) and a new family with a refresh token note the session's last use; a failed rotation does not",
          arguments: StoreBackend.allCases)
    func lastUse(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertSession(StoreConformanceTests.session("s1"))
        #expect(try await store.session(id: "s1")?.lastUsedAt == nil)
        let issued = Self.now.addingTimeInterval(5)
        try await store.insertFamily(TokenFamily(id: "f1", sessionId: "s1", clientId: "kid", scope: "openid", nonce: nil, createdAt: issued,
                                                 refreshHash: "r1", refreshExpiresAt: Self.now.addingTimeInterval(600)))
        #expect(try await store.session(id: "s1")?.lastUsedAt == issued)
        let refreshed = Self.now.addingTimeInterval(90)
        #expect(try await store.rotateRefresh(familyId: "f1", from: "r1", to: "r2", expiresAt: Self.now.addingTimeInterval(900),
                                              graceResponse: nil, at: refreshed))
        #expect(try await store.session(id: "s1")?.lastUsedAt == refreshed)
        #expect(try await !store.rotateRefresh(familyId: "f1", from: "r1", to: "r3", expiresAt: Self.now.addingTimeInterval(900),
                                               graceResponse: nil, at: Self.now.addingTimeInterval(200)))
        #expect(try await store.session(id: "s1")?.lastUsedAt == refreshed)
        try await store.close()
    }
}
