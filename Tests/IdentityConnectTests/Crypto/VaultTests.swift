import Foundation
import IdentityCore
import Testing

@Suite("Vault: AES-256-GCM with key ids and bound associated data")
struct VaultTests {
    static let k1 = try! Vault.Key(id: "v1", bytes: Array(repeating: 1, count: 32))
    static let k2 = try! Vault.Key(id: "v2", bytes: Array(repeating: 2, count: 32))
    static let binding = Vault.Binding(purpose: "upstream", owner: "session-1", scope: "svc")

    @Test("seal then open; the ciphertext carries the key id and not the plaintext")
    func roundTrip() throws {
        let vault = try Vault(keys: [Self.k1])
        let sealed = try vault.seal("upstream-secret-token", Self.binding)
        #expect(Vault.keyId(of: sealed) == "v1")
        #expect(sealed.range(of: Data("upstream-secret-token".utf8)) == nil)
        #expect(try vault.openString(sealed, Self.binding) == "upstream-secret-token")
        // Fresh nonce each time.
        #expect(try vault.seal("upstream-secret-token", Self.binding) != sealed)
    }

    @Test("a ciphertext moved to another row, purpose or scope does not open")
    func bindingEnforced() throws {
        let vault = try Vault(keys: [Self.k1])
        let sealed = try vault.seal("x", Self.binding)
        for other in [Vault.Binding(purpose: "upstream", owner: "session-2", scope: "svc"),
                      Vault.Binding(purpose: "grace", owner: "session-1", scope: "svc"),
                      Vault.Binding(purpose: "upstream", owner: "session-1", scope: "other")] {
            #expect(throws: VaultError.self) { try vault.open(sealed, other) }
        }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: VaultError.self) { try vault.open(tampered, Self.binding) }
        #expect(throws: VaultError.self) { try vault.open(Data([1, 2, 3]), Self.binding) }
    }

    @Test("rotation: the newest key seals, older keys still open, reseal moves values forward")
    func rotation() throws {
        let old = try Vault(keys: [Self.k1])
        let sealed = try old.seal("t", Self.binding)
        let rotated = try Vault(keys: [Self.k2, Self.k1])
        #expect(try rotated.openString(sealed, Self.binding) == "t")
        let resealed = try #require(try rotated.reseal(sealed, Self.binding))
        #expect(Vault.keyId(of: resealed) == "v2")
        #expect(try rotated.reseal(resealed, Self.binding) == nil)
        let withoutOld = try Vault(keys: [Self.k2])
        #expect(throws: VaultError.self) { try withoutOld.open(sealed, Self.binding) }
        #expect(throws: VaultError.self) { try Vault.Key(id: "short", bytes: [1, 2, 3]) }
    }
}
