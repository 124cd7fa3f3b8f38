import Foundation

/// A QR-code sign-in (docs/qr-login.md): a browser shows a code on the login page; the app of a
/// signed-in user confirms or refuses it; the browser that showed it — and only that one —
/// then finishes the sign-in. Stored under the code's hash; the code itself is never stored.
public struct QRLogin: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending, confirmed, refused
    }

    public var codeHash: String
    /// The pending authorization the browser finishes (its id's hash).
    public var pendingIdHash: String
    /// The hash of the showing browser's binding cookie.
    public var browserHash: String
    public var clientId: String
    public var appKey: String
    public var authServiceId: String
    /// What the showing browser sent, for the app's confirmation screen.
    public var userAgent: String
    public var acceptLanguage: String?
    public var clientAddress: String?
    public var state: State
    /// On confirmation: the app's session, which the browser signs in to, and its subject.
    public var sessionId: String?
    public var subject: String?
    /// On refusal: the app's `cause_id`.
    public var refusal: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(codeHash: String, pendingIdHash: String, browserHash: String, clientId: String, appKey: String,
                authServiceId: String, userAgent: String, acceptLanguage: String?, clientAddress: String?,
                state: State = .pending, sessionId: String? = nil, subject: String? = nil, refusal: String? = nil,
                createdAt: Date, expiresAt: Date) {
        self.codeHash = codeHash
        self.pendingIdHash = pendingIdHash
        self.browserHash = browserHash
        self.clientId = clientId
        self.appKey = appKey
        self.authServiceId = authServiceId
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
        self.clientAddress = clientAddress
        self.state = state
        self.sessionId = sessionId
        self.subject = subject
        self.refusal = refusal
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// How an app settles a QR sign-in.
public enum QRLoginSettlement: Sendable, Equatable {
    /// Sign the browser in to the app's session.
    case confirmed(sessionId: String, subject: String)
    /// Refused, with the app's `cause_id`.
    case refused(cause: String)

    /// What the stored row becomes: state, session id, subject, refusal.
    public var columns: (state: QRLogin.State, sessionId: String?, subject: String?, refusal: String?) {
        switch self {
        case .confirmed(let sessionId, let subject): (.confirmed, sessionId, subject, nil)
        case .refused(let cause): (.refused, nil, nil, cause)
        }
    }
}

/// QR-code sign-ins, shared by every broker instance (the app may confirm on one while the
/// browser waits on another).
public protocol QRLoginStore: Sendable {
    func insertQRLogin(_ login: QRLogin) async throws
    func qrLogin(codeHash: String) async throws -> QRLogin?
    /// Moves a pending, unexpired (at `now`) sign-in to its settlement in one statement; returns
    /// whether it did, so of two apps settling one code exactly one wins.
    func settleQRLogin(codeHash: String, _ settlement: QRLoginSettlement, at now: Date) async throws -> Bool
}
