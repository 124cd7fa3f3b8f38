/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: a user was present (touched the authenticator).
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV: the authenticator verified the user (PIN, biometrics).
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE: the credential may be backed up or synced (a multi-device passkey).
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS: the credential is currently backed up or synced.
    public static let backupState = AuthenticatorFlags(rawValue: 0x10)
    /// AT: attested credential data follows the counter.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED: an extensions map ends the data.
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)
}
