import Foundation
import IdentityCore
import StoreContracts

/// Upstream tokens at rest (docs/operations.md, "Vault"): sealed by the vault with associated data
/// binding session, auth service and purpose, and opened with a memo — backends validate the same
/// session many times, and AES-GCM open was a visible share of a validate. A refresh stores a new
/// ciphertext, so a stale entry is never asked for again; a reload starts the memo empty.
struct UpstreamVault: Sendable {
    let live: LiveState
    let metrics: any BrokerMetricsSink
    let opened: BoundedCache<OpenedUpstreamKey, UpstreamToken>

    func seal(_ token: UpstreamToken, sessionId: String, authServiceId: String) throws -> Data {
        metrics.vault("seal")
        return try live.snapshot.vault.seal(token.serialized,
                                            VaultBindings.upstream(sessionId: sessionId, authServiceId: authServiceId))
    }

    /// The upstream token of `session`, opened from the vault; nil when it has none.
    func open(of session: LoginSession) throws -> UpstreamToken? {
        guard let sealed = session.sealedUpstream else { return nil }
        let key = OpenedUpstreamKey(sealed: sealed, sessionId: session.id, authServiceId: session.authServiceId)
        if let token = opened.value(for: key) { return token }
        let data = try live.snapshot.vault.open(sealed, VaultBindings.upstream(sessionId: session.id, authServiceId: session.authServiceId))
        metrics.vault("open")
        let token = try UpstreamToken.decode(data)
        opened.store(token, for: key)
        return token
    }
}

/// Identifies one sealed upstream token: the ciphertext and the row it is bound to.
struct OpenedUpstreamKey: Hashable, Sendable {
    var sealed: Data
    var sessionId: String
    var authServiceId: String
}
