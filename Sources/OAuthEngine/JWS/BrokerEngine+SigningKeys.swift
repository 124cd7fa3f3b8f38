import Foundation
import IdentityCore
import JOSE
import StoreContracts

extension BrokerEngine {
    /// Verifies a JWS this broker signed (access token, ID token). When the token names a key this
    /// instance has not loaded yet — another instance made it on first start, or `idconnect keys
    /// rotate` ran and housekeeping has not picked it up — the stored keys are read once (see
    /// ``KeyReloadGate``) and the check is tried again, so a token from a sibling instance never
    /// fails for the minutes until the next housekeeping run.
    func verifyOwnJWS(_ token: String, type: String?, keys: SigningKeyRing) async -> CompactJWS.Parts? {
        if let parts = keys.verify(token, type: type) { return parts }
        guard let newer = await keysAfterReload(forUnknownKeyIn: token, current: keys) else { return nil }
        return newer.verify(token, type: type)
    }

    /// The key ring to try again with, or nil when the token's `kid` is known already (the failure
    /// is something else), missing, or still unknown after reading storage.
    func keysAfterReload(forUnknownKeyIn token: String, current: SigningKeyRing) async -> SigningKeyRing? {
        guard let kid = CompactJWS.decode(token)?.keyId, kid.utf8.count <= 128, current.verificationKeys[kid] == nil else { return nil }
        await keyReloads.run(now: clock.now()) { [self] in
            do {
                if let ring = try await adoptStoredSigningKeys() {
                    logger.info("signing keys reloaded for a token signed by another instance", metadata: ["active": "\(ring.active.kid)"])
                }
            } catch {
                logger.warning("signing keys could not be reloaded", metadata: ["error": "\(error)"])
            }
        }
        let keys = state.keys
        return keys.verificationKeys[kid] == nil ? nil : keys
    }

    /// Reads the stored signing keys and, when their live set differs from this instance's ring,
    /// builds and installs a ring from them as they are: nothing is generated or retired (that is
    /// the job of start-up and housekeeping, see `SigningKeyRing.load`). Returns the new ring.
    @discardableResult
    public func adoptStoredSigningKeys() async throws -> SigningKeyRing? {
        let state = self.state
        let stored = try await store.signingKeys()
        let now = clock.now()
        guard SigningKeyStorage.liveKids(stored, at: now) != Set(state.keys.verificationKeys.keys) else { return nil }
        let algorithm = state.config.signingAlgorithm.jose
        let ring = try SigningKeyStorage.build(from: stored, vault: state.vault, algorithm: algorithm, now: now)
        updateKeys(ring)
        return ring
    }
}
