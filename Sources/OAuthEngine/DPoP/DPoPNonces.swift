import Foundation
import IdentityCore

/// Server nonces for DPoP proofs (RFC 9449 §8, `DPoP-Nonce`): a sealed issue time, so any
/// instance sharing the vault accepts any other's nonce without a store, and a nonce older than
/// ``lifetime`` is refused (the client gets a fresh one with `use_dpop_nonce`).
struct DPoPNonces: Sendable {
    /// How long a nonce is accepted: well under a proof's 5 minutes, so that a proof made in
    /// advance is worth at most this long. Every answer to a DPoP request carries a fresh one.
    static let lifetime: TimeInterval = 60

    let context: EngineContext

    private static let binding = Vault.Binding(purpose: "dpop-nonce", owner: "")

    /// A nonce issued now.
    func fresh() throws -> String {
        var seconds = Int64(context.clock.now().timeIntervalSince1970).bigEndian
        let stamp = withUnsafeBytes(of: &seconds) { Data($0) }
        return Base64URL.encode(try context.vault.seal(stamp, Self.binding))
    }

    /// True when `nonce` is one of ours and younger than ``lifetime``.
    func isCurrent(_ nonce: String) -> Bool {
        guard nonce.utf8.count <= 256, let sealed = Base64URL.decode(nonce),
              let stamp = try? context.vault.open(sealed, Self.binding), stamp.count == 8 else { return false }
        let issued = stamp.reduce(Int64(0)) { ($0 << 8) | Int64($1) }
        let age = context.clock.now().timeIntervalSince1970 - TimeInterval(issued)
        return age >= -DPoPProofChecker.skew && age <= Self.lifetime
    }
}
