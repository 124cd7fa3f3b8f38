import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// Verifies JWS this broker signed (access tokens, ID tokens). When a token names a key this
/// instance has not loaded yet — another instance made it on first start, or `idconnect keys
/// rotate` ran and housekeeping has not picked it up — the stored keys are read once (at most
/// every two seconds, see ``KeyReloadGate``) and the check is tried again, so a token from a
/// sibling instance never fails for the minutes until the next housekeeping run.
public struct SigningKeyReloader: Sendable {
    let context: EngineContext
    let keyStore: any SigningKeyStore
    let gate: KeyReloadGate

    /// The token verified with `keys` against `policy`, or with the stored keys when it names a
    /// key `keys` lacks; nil when it fails either way.
    func verify(_ token: String, policy: JWTPolicy, with keys: SigningKeyRing) async -> VerifiedJWT? {
        let now = context.clock.now()
        if let verified = try? JWTVerifier.verify(token, keys: keys, policy: policy, now: now) { return verified }
        guard let newer = await keysAfterReload(forUnknownKeyIn: token, current: keys) else { return nil }
        return try? JWTVerifier.verify(token, keys: newer, policy: policy, now: now)
    }

    /// The key ring to try again with, or nil when the token's `kid` is known already (the failure
    /// is something else), missing, or still unknown after reading storage.
    private func keysAfterReload(forUnknownKeyIn token: String, current: SigningKeyRing) async -> SigningKeyRing? {
        guard let kid = CompactJWS.decode(token)?.keyId, kid.utf8.count <= 128, current.verificationKeys[kid] == nil else { return nil }
        await gate.run(now: context.clock.now()) {
            do {
                if let ring = try await adoptStored() {
                    context.logger.info("signing keys reloaded for a token signed by another instance", metadata: ["active": "\(ring.active.kid)"])
                }
            } catch {
                context.logger.warning("signing keys could not be reloaded", metadata: ["error": "\(error)"])
            }
        }
        let keys = context.state.keys
        return keys.verificationKeys[kid] == nil ? nil : keys
    }

    /// Reads the stored signing keys and, when their live set differs from this instance's ring,
    /// builds and installs a ring from them as they are: nothing is generated or retired (that is
    /// the job of start-up and housekeeping, see `SigningKeyStorage.load`). Returns the new ring.
    @discardableResult
    public func adoptStored() async throws -> SigningKeyRing? {
        let state = context.state
        let stored = try await keyStore.signingKeys()
        let now = context.clock.now()
        guard SigningKeyStorage.liveKids(stored, at: now) != Set(state.keys.verificationKeys.keys) else { return nil }
        let ring = try SigningKeyStorage.build(from: stored, vault: state.vault, algorithm: state.config.signingAlgorithm.jose, now: now)
        context.live.updateKeys(ring)
        return ring
    }
}
