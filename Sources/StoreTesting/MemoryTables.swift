import Foundation
import IdentityCore
import StoreContracts

/// What a ``MemoryStore`` holds: one dictionary per table of the SQL backends' schemas, keyed by
/// the table's primary key, the records themselves as values. Columns the records do not carry
/// (a code's use, a lease's holder) get a small row type of their own.
struct MemoryTables: Sendable {
    /// Pending authorizations by the hash of their id.
    var pending: [String: PendingAuthorization] = [:]
    /// Authorization codes by hash, with their use.
    var codes: [String: CodeRow] = [:]
    var sessions: [String: LoginSession] = [:]
    var families: [String: TokenFamily] = [:]
    /// Refresh tokens rotated away before the last rotation: token hash → family id.
    var retiredRefreshTokens: [String: String] = [:]
    /// Opaque access tokens by hash.
    var opaqueTokens: [String: OpaqueAccessToken] = [:]
    /// Access tokens revoked on their own: jti → when the revocation may be forgotten.
    var revokedAccessTokens: [String: Date] = [:]
    /// Signing keys by kid.
    var signingKeys: [String: StoredSigningKey] = [:]
    /// SSO records by the hash of their cookie.
    var ssoRecords: [String: SSORecord] = [:]
    /// Upstream refresh leases by session id.
    var refreshLeases: [String: LeaseRow] = [:]
    /// Registered app instances by client id.
    var registeredClients: [String: RegisteredClient] = [:]
    /// One-time grants by hash.
    var oneTimeGrants: [String: OneTimeGrantRow] = [:]
    /// Throttle counters by key hash.
    var throttle: [String: ThrottleCounter] = [:]
    /// QR sign-ins by the hash of their code.
    var qrLogins: [String: QRLogin] = [:]
    /// Device authorizations by the hash of their device code.
    var devices: [String: DeviceAuthorization] = [:]
    /// Authenticator apps by subject (one per user).
    var totpFactors: [String: TOTPFactor] = [:]
    /// Passkeys by credential id.
    var passkeys: [String: PasskeyCredential] = [:]
    /// Hashes of unused recovery codes by subject.
    var recoveryCodes: [String: Set<String>] = [:]
    /// Connectors' last good documents by key.
    var connectorDocuments: [String: StoredConnectorDocument] = [:]
    /// Ended sessions waiting for back-channel logout delivery, by session id.
    var logoutNotices: [String: LogoutNoticeRow] = [:]
    /// Consents by subject, then client id.
    var consents: [String: [String: ConsentRecord]] = [:]
    /// Permission requests by id.
    var permissions: [String: PermissionRequest] = [:]
}

/// An authorization code and its use: when it was redeemed and the family its tokens belong to.
struct CodeRow: Sendable {
    var code: AuthorizationCode
    var usedAt: Date?
    var familyId: String?
}

/// A logout notice's queue columns: when it is due and who holds it until when.
struct LogoutNoticeRow: Sendable {
    var subject: String
    var endedAt: Date
    var dueAt: Date
    var attempts = 0
    var holder: String?
    var claimedUntil: Date?
    var delivered: [String] = []
}

/// Who may refresh a session's upstream token, until when.
struct LeaseRow: Sendable {
    var holder: String
    var expiresAt: Date
}

/// A one-time grant's sealed payload and expiry.
struct OneTimeGrantRow: Sendable {
    var sealed: Data
    var expiresAt: Date
}

extension Dictionary where Key == String {
    /// Stores `value` under `key` as an insert into a table with that primary key does: throws
    /// ``MemoryStore/ConstraintViolation`` when a row already has it.
    mutating func insertNew(_ value: Value, at key: String, table: String) throws {
        guard self[key] == nil else { throw MemoryStore.ConstraintViolation(table: table, key: key) }
        self[key] = value
    }
}

extension String {
    /// Orders as the SQL backends order text columns (SQLite's `BINARY`, PostgreSQL's `"C"`):
    /// by the UTF-8 bytes.
    func precedesInBytes(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}

extension Date {
    /// Whether this date orders first, `tie` deciding between equal dates: an `ORDER BY` on a
    /// date and then a key.
    func isBefore(_ other: Date, orElse tie: @autoclosure () -> Bool) -> Bool { self == other ? tie() : self < other }
}
