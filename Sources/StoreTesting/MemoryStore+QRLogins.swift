import Foundation
import StoreContracts

extension MemoryStore: QRLoginStore {
    public func insertQRLogin(_ login: QRLogin) async throws {
        try transaction { try $0.qrLogins.insertNew(login, at: login.codeHash, table: "qr_logins") }
    }

    public func qrLogin(codeHash: String) async throws -> QRLogin? {
        try read { $0.qrLogins[codeHash] }
    }

    /// Only a pending sign-in that has not expired at `now` is settled.
    public func settleQRLogin(codeHash: String, _ settlement: QRLoginSettlement, at now: Date) async throws -> Bool {
        try transaction { tables in
            guard var login = tables.qrLogins[codeHash], login.state == .pending, login.expiresAt > now else { return false }
            (login.state, login.sessionId, login.subject, login.refusal) = settlement.columns
            tables.qrLogins[codeHash] = login
            return true
        }
    }
}
