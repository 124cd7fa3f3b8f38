import Foundation
import IdentityCore
import StoreContracts

/// Recovery codes shown once on the page the browser goes to next (after a passkey is added, the
/// page's script follows a redirect): sealed under a one-time handle bound to the session, taken
/// when the page shows them.
struct AccountCodeHandoff: Sendable {
    let context: EngineContext
    let grantStore: any OneTimeGrantStore

    /// Keeps recovery codes to show once on the page the script goes to next; returns the
    /// handle the page's URL names (nil when there are none).
    func hold(_ codes: [String], viewer: AccountViewer) async throws -> String? {
        guard !codes.isEmpty else { return nil }
        let handle = Secrets.randomToken(bytes: 16)
        let hash = Self.codesKey(handle, viewer: viewer)
        let sealed = try context.vault.seal(codes.joined(separator: "\n"), VaultBindings.accountCodes(hash: hash))
        try await grantStore.insertOneTimeGrant(hash: hash, sealed: sealed, expiresAt: context.clock.now().addingTimeInterval(300))
        return handle
    }

    /// The recovery codes a handle names, for this session only, taken (shown once).
    func take(_ handle: String?, viewer: AccountViewer) async throws -> [String] {
        guard let handle, handle.utf8.count <= 64 else { return [] }
        let hash = Self.codesKey(handle, viewer: viewer)
        guard let taken = try await grantStore.takeOneTimeGrant(hash: hash),
              context.clock.now() < taken.expiresAt,
              let text = try? context.vault.openString(taken.sealed, VaultBindings.accountCodes(hash: hash)) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    static func codesKey(_ handle: String, viewer: AccountViewer) -> String {
        Secrets.hash("account-codes\u{0}\(viewer.session.id)\u{0}\(handle)")
    }
}
