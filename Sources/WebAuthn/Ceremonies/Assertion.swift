import Crypto

/// What the server kept from registration, handed back to check a sign-in.
public struct StoredCredential: Sendable, Hashable {
    /// The COSE_Key from ``RegisteredCredential/publicKey``.
    public var publicKey: [UInt8]
    /// The last signature counter accepted for this credential.
    public var signCount: UInt32

    public init(publicKey: [UInt8], signCount: UInt32) {
        self.publicKey = publicKey
        self.signCount = signCount
    }
}

/// A sign-in that passed verification. The caller stores ``signCount`` as the
/// credential's new counter, and may update its backup state.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The counter the authenticator reported; store it for the next sign-in.
    public let signCount: UInt32
    public let flags: AuthenticatorFlags

    /// UV: the user was verified (PIN or biometrics).
    public var isUserVerified: Bool { flags.contains(.userVerified) }
    /// BS: the passkey is synced or backed up now (this can change over time).
    public var isBackedUp: Bool { flags.contains(.backupState) }
}

extension RelyingParty {
    /// Verifies a sign-in (`navigator.credentials.get`) response, following WebAuthn
    /// Level 2 §7.2.
    ///
    /// Checks, in order: client data type `webauthn.get`, the challenge (constant
    /// time), the exact origin, no cross-origin frame; the authenticator data's
    /// layout, RP ID hash, user presence, and user verification when required; the
    /// signature over `authenticatorData ‖ SHA-256(clientDataJSON)` with the stored
    /// key; and last the counter: when the stored or the new counter is non-zero,
    /// the new one must be strictly greater, else
    /// ``WebAuthnError/counterDidNotIncrease(stored:received:)``. The counter is
    /// checked only after the signature, so only the genuine authenticator (or a
    /// clone of it) can raise that security event.
    ///
    /// The caller finds `credential` by the response's credential ID (and, for a
    /// discoverable credential, checks the user handle belongs to its owner), and
    /// discards `expectedChallenge` whatever the outcome.
    public func verifyAssertion(
        clientDataJSON: [UInt8],
        authenticatorData: [UInt8],
        signature: [UInt8],
        credential: StoredCredential,
        expectedChallenge: [UInt8],
        requireUserVerification: Bool
    ) throws(WebAuthnError) -> VerifiedAssertion {
        try checkChallenge(expectedChallenge)
        let clientData = try CollectedClientData.parse(clientDataJSON)
        try clientData.verify(type: CeremonyType.get, challenge: expectedChallenge, origin: origin)

        let authData = try AuthenticatorData(bytes: authenticatorData)
        try checkAuthenticatorData(authData, requireUserVerification: requireUserVerification)

        let key = try CredentialPublicKey(coseKey: credential.publicKey)
        let signedMessage = authenticatorData + Array(SHA256.hash(data: clientDataJSON))
        guard key.isValidSignature(signature, for: signedMessage) else { throw .signatureInvalid }

        if credential.signCount != 0 || authData.signCount != 0 {
            guard authData.signCount > credential.signCount else {
                throw .counterDidNotIncrease(stored: credential.signCount, received: authData.signCount)
            }
        }
        return VerifiedAssertion(signCount: authData.signCount, flags: authData.flags)
    }
}
