import Foundation

/// Whose second factors a row holds: one user at one auth service. `subject` (the broker's
/// subject for the pair) is the key; the rest lets operators find the user by auth service id
/// and user id (`idconnect mfa list|reset`).
public struct MFAOwner: Sendable, Equatable, Codable {
    public var subject: String
    /// The auth service's namespace (`env:<appKey>/<id>` or `org:<id>/<id>`).
    public var namespace: String
    public var authServiceId: String
    /// The user's id at the identity source.
    public var userId: String

    public init(subject: String, namespace: String, authServiceId: String, userId: String) {
        self.subject = subject
        self.namespace = namespace
        self.authServiceId = authServiceId
        self.userId = userId
    }
}

/// An authenticator app (RFC 6238): its secret sealed by the vault (bound to the user, the auth
/// service and the purpose) and the last time step accepted, so that no step is accepted twice.
public struct TOTPFactor: Sendable, Equatable {
    public var owner: MFAOwner
    public var sealedSecret: Data
    /// The last accepted time step; only later steps are accepted (replay).
    public var lastStep: Int64
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(owner: MFAOwner, sealedSecret: Data, lastStep: Int64, createdAt: Date, lastUsedAt: Date? = nil) {
        self.owner = owner
        self.sealedSecret = sealedSecret
        self.lastStep = lastStep
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A passkey (WebAuthn credential): its id, COSE public key and signature counter.
public struct PasskeyCredential: Sendable, Equatable {
    /// The credential id, base64url.
    public var credentialId: String
    public var owner: MFAOwner
    /// A label for people (the account page lists it).
    public var name: String
    /// The COSE_Key bytes from registration.
    public var publicKey: Data
    public var signCount: Int64
    /// Transport hints (`internal`, `hybrid`, `usb`, …) for `allowCredentials`.
    public var transports: [String]
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(credentialId: String, owner: MFAOwner, name: String, publicKey: Data, signCount: Int64, transports: [String],
                createdAt: Date, lastUsedAt: Date? = nil) {
        self.credentialId = credentialId
        self.owner = owner
        self.name = name
        self.publicKey = publicKey
        self.signCount = signCount
        self.transports = transports
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// Everything one user has enrolled at one auth service.
public struct MFAEnrolment: Sendable, Equatable {
    public var owner: MFAOwner
    public var totp: TOTPFactor?
    public var passkeys: [PasskeyCredential]
    /// Recovery codes not used yet.
    public var recoveryCodesLeft: Int

    public init(owner: MFAOwner, totp: TOTPFactor?, passkeys: [PasskeyCredential], recoveryCodesLeft: Int) {
        self.owner = owner
        self.totp = totp
        self.passkeys = passkeys
        self.recoveryCodesLeft = recoveryCodesLeft
    }

    /// Whether the user has a factor (recovery codes alone are not one).
    public var hasFactor: Bool { totp != nil || !passkeys.isEmpty }
}

/// What `idconnect mfa reset` removed.
public struct MFARemoval: Sendable, Equatable {
    public var totp: Int
    public var passkeys: Int
    public var recoveryCodes: Int

    public init(totp: Int = 0, passkeys: Int = 0, recoveryCodes: Int = 0) {
        self.totp = totp
        self.passkeys = passkeys
        self.recoveryCodes = recoveryCodes
    }

    public var total: Int { totp + passkeys + recoveryCodes }
}

/// Second factors (docs/mfa.md), shared by every broker instance. Recovery codes are stored as
/// hashes only. Each change is one statement or one transaction, so two instances racing on one
/// user (a code typed twice, a passkey used twice) have exactly one winner.
public protocol MFAStore: Sendable {
    /// The user's enrolment (empty when they have none).
    func mfaEnrolment(subject: String) async throws -> MFAEnrolment?
    /// Enrols an authenticator app (replacing an earlier one of the same user), together with
    /// `recoveryCodeHashes` (replacing any earlier codes) when given, in one transaction.
    func enrolTOTP(_ factor: TOTPFactor, recoveryCodeHashes: [String]?, at date: Date) async throws
    /// Accepts time step `step` only if it is later than the last one accepted; returns whether it did.
    func acceptTOTPStep(subject: String, step: Int64, at date: Date) async throws -> Bool
    /// Registers a passkey, with `recoveryCodeHashes` when given, in one transaction. False,
    /// storing nothing, when a credential with that id exists already (WebAuthn §7.1 step 22).
    func enrolPasskey(_ credential: PasskeyCredential, recoveryCodeHashes: [String]?, at date: Date) async throws -> Bool
    func passkey(credentialId: String) async throws -> PasskeyCredential?
    /// Moves the counter from `old` to `new` if it is still `old`; returns whether it did.
    func updatePasskeyCounter(credentialId: String, from old: Int64, to new: Int64, at date: Date) async throws -> Bool
    /// Uses one recovery code (deletes it); returns whether it was there.
    func useRecoveryCode(subject: String, hash: String) async throws -> Bool
    /// Replaces the user's recovery codes.
    func replaceRecoveryCodes(subject: String, hashes: [String], at date: Date) async throws
    /// Enrolments at auth service `authServiceId` (every namespace of that id), optionally of one
    /// user (user id without regard to case, or subject), at most `limit`.
    func mfaEnrolments(authServiceId: String, user: String?, limit: Int) async throws -> [MFAEnrolment]
    /// Removes every factor and recovery code of the user.
    func removeMFA(subject: String) async throws -> MFARemoval
    /// Removes the user's authenticator app (the account page); returns whether there was one.
    func removeTOTP(subject: String) async throws -> Bool
    /// Removes one passkey of the user; false when the user has no passkey with that id (another
    /// user's id changes nothing).
    func removePasskey(subject: String, credentialId: String) async throws -> Bool
    /// Renames one passkey of the user; false when the user has no passkey with that id.
    func renamePasskey(subject: String, credentialId: String, name: String) async throws -> Bool
    /// Records what a session's sign-in proved (`amr`), after a second factor raised it.
    func setSessionAMR(sessionId: String, amr: [String]) async throws
}
