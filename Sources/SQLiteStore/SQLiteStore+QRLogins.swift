import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: QRLoginStore {
    public func insertQRLogin(_ login: QRLogin) async throws {
        try await write { db in
            try db.cachedStatement(sql: """
                INSERT INTO qr_logins (code_hash, pending_id_hash, browser_hash, client_id, app_key, auth_service_id,
                    user_agent, accept_language, client_address, state, session_id, subject, refusal, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [login.codeHash, login.pendingIdHash, login.browserHash, login.clientId, login.appKey,
                                 login.authServiceId, login.userAgent, login.acceptLanguage, login.clientAddress,
                                 login.state.rawValue, login.sessionId, login.subject, login.refusal,
                                 login.createdAt.sql, login.expiresAt.sql])
        }
    }

    public func qrLogin(codeHash: String) async throws -> QRLogin? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM qr_logins WHERE code_hash = ?"),
                arguments: [codeHash]).map { row in
                QRLogin(codeHash: row["code_hash"], pendingIdHash: row["pending_id_hash"], browserHash: row["browser_hash"],
                        clientId: row["client_id"], appKey: row["app_key"], authServiceId: row["auth_service_id"],
                        userAgent: row["user_agent"], acceptLanguage: row["accept_language"], clientAddress: row["client_address"],
                        state: QRLogin.State(rawValue: row["state"]) ?? .refused, sessionId: row["session_id"],
                        subject: row["subject"], refusal: row["refusal"],
                        createdAt: Date(timeIntervalSince1970: row["created_at"]),
                        expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            }
        }
    }

    public func settleQRLogin(codeHash: String, _ settlement: QRLoginSettlement, at now: Date) async throws -> Bool {
        let (state, sessionId, subject, refusal) = settlement.columns
        return try await write { db in
            try db.cachedStatement(sql: """
                UPDATE qr_logins SET state = ?, session_id = ?, subject = ?, refusal = ?
                WHERE code_hash = ? AND state = 'pending' AND expires_at > ?
                """).execute(arguments: [state.rawValue, sessionId, subject, refusal, codeHash, now.sql])
            return db.changesCount == 1
        }
    }
}
