import Foundation
import GRDB
import StoreContracts
import IdentityCore

/// The writes that finish a sign-in, each one transaction: a code for the client
/// (`completeSignIn`) or tokens at once (`startSession`, the password grant). The throttle's
/// reset (in memory, ``ThrottleCounters``) follows a transaction that committed, never one that failed.
extension SQLiteStore {
    public func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?,
                               throttleReset: ThrottleReset?) async throws -> Bool {
        let attributes = session.storedAttributes
        let codeData = try code.storedJSON()
        let completed = try await pendingWrite(pendingIdHash) { [self] db in
            if let pendingIdHash, try !deletePending(idHash: pendingIdHash, in: db) { return false }
            try Self.insert(session, attributes: attributes, in: db)
            try Self.insert(code, data: codeData, in: db)
            return true
        }
        // The password was right whether or not another request completed first.
        applied(throttleReset)
        return completed
    }

    public func startSession(_ session: LoginSession, family: TokenFamily, throttleReset: ThrottleReset?) async throws {
        let started = session.extended(for: family)
        let attributes = started.storedAttributes
        try await write { db in
            try Self.insert(started, attributes: attributes, in: db)
            try Self.insertRow(family, in: db)
        }
        applied(throttleReset)
    }
}
