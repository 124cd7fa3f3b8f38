import Foundation
import PostgresNIO
import StoreContracts

extension PostgresStore: QRLoginStore {
    public func insertQRLogin(_ login: QRLogin) async throws {
        _ = try await rows("""
            INSERT INTO qr_logins (code_hash, pending_id_hash, browser_hash, client_id, app_key, auth_service_id,
                user_agent, accept_language, client_address, state, session_id, subject, refusal, created_at, expires_at)
            VALUES (\(login.codeHash), \(login.pendingIdHash), \(login.browserHash), \(login.clientId), \(login.appKey),
                \(login.authServiceId), \(login.userAgent), \(login.acceptLanguage), \(login.clientAddress),
                \(login.state.rawValue), \(login.sessionId), \(login.subject), \(login.refusal),
                \(login.createdAt.pg), \(login.expiresAt.pg))
            """)
    }

    public func qrLogin(codeHash: String) async throws -> QRLogin? {
        guard let row = try await rows("""
            SELECT code_hash, pending_id_hash, browser_hash, client_id, app_key, auth_service_id, user_agent,
                accept_language, client_address, state, session_id, subject, refusal, created_at, expires_at
            FROM qr_logins WHERE code_hash = \(codeHash)
            """).first else { return nil }
        let (hash, pending, browser, client, appKey, service, agent) =
            try row.decode((String, String, String, String, String, String, String).self)
        let columns = row.makeRandomAccess()
        return QRLogin(codeHash: hash, pendingIdHash: pending, browserHash: browser, clientId: client, appKey: appKey,
                       authServiceId: service, userAgent: agent, acceptLanguage: try columns[7].decode(String?.self),
                       clientAddress: try columns[8].decode(String?.self),
                       state: QRLogin.State(rawValue: try columns[9].decode(String.self)) ?? .refused,
                       sessionId: try columns[10].decode(String?.self), subject: try columns[11].decode(String?.self),
                       refusal: try columns[12].decode(String?.self),
                       createdAt: Date(timeIntervalSince1970: try columns[13].decode(Double.self)),
                       expiresAt: Date(timeIntervalSince1970: try columns[14].decode(Double.self)))
    }

    public func settleQRLogin(codeHash: String, _ settlement: QRLoginSettlement, at now: Date) async throws -> Bool {
        let (state, sessionId, subject, refusal) = settlement.columns
        return try await rows("""
            UPDATE qr_logins SET state = \(state.rawValue), session_id = \(sessionId), subject = \(subject), refusal = \(refusal)
            WHERE code_hash = \(codeHash) AND state = 'pending' AND expires_at > \(now.pg) RETURNING 1
            """).count == 1
    }
}
