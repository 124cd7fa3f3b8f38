/// A passkey that passed registration: everything the caller stores to verify later
/// sign-ins, plus facts worth showing or logging.
///
/// The caller must still refuse a ``credentialID`` that is already registered
/// (WebAuthn §7.1, step 22) before storing it.
public struct RegisteredCredential: Sendable, Hashable {
    /// The credential ID, from the authenticator data the authenticator signed.
    public let credentialID: [UInt8]
    /// The credential public key as a COSE_Key, to store and hand back in ``StoredCredential``.
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    /// The signature counter at registration; store it as the starting value.
    public let signCount: UInt32
    /// The authenticator model's AAGUID (16 bytes; all zero when undisclosed).
    /// Informational only: attestation is not verified.
    public let aaguid: [UInt8]
    /// BE: the passkey may be synced to other devices.
    public let isBackupEligible: Bool
    /// BS: the passkey is synced or backed up now.
    public let isBackedUp: Bool
    /// UV: the user was verified (PIN or biometrics) during registration.
    public let isUserVerified: Bool
    /// The attestation format the authenticator used (`none`, `packed`, ...);
    /// informational, its statement is not verified.
    public let attestationFormat: String
}

extension RelyingParty {
    /// Verifies a registration (`navigator.credentials.create`) response, following
    /// WebAuthn Level 2 §7.1 without attestation verification (see the note on
    /// attestation below).
    ///
    /// Checks: client data type `webauthn.create`, the challenge (constant time),
    /// the exact origin, no cross-origin frame; an attestation object of `fmt`,
    /// `attStmt` and `authData`; the RP ID hash; user presence; user verification
    /// when `requireUserVerification`; a new credential whose key is ES256 or RS256
    /// (RSA of at least 2048 bits).
    ///
    /// Attestation: registration asks for none, so any statement is ignored (format
    /// `none` must be empty); the result carries the assurance of `none`.
    ///
    /// - Parameters:
    ///   - clientDataJSON: `response.clientDataJSON`, as bytes.
    ///   - attestationObject: `response.attestationObject`, as bytes.
    ///   - expectedChallenge: the single-use challenge issued for this ceremony;
    ///     the caller must discard it whatever the outcome.
    ///   - requireUserVerification: refuse authenticators that did not verify the user.
    public func verifyRegistration(
        clientDataJSON: [UInt8],
        attestationObject: [UInt8],
        expectedChallenge: [UInt8],
        requireUserVerification: Bool
    ) throws(WebAuthnError) -> RegisteredCredential {
        try checkChallenge(expectedChallenge)
        let clientData = try CollectedClientData.parse(clientDataJSON)
        try clientData.verify(type: CeremonyType.create, challenge: expectedChallenge, origin: origin)

        let attestation = try AttestationObject.parse(attestationObject)
        let authData = try AuthenticatorData(bytes: attestation.authenticatorData)
        try checkAuthenticatorData(authData, requireUserVerification: requireUserVerification)
        guard let credential = authData.attestedCredentialData else { throw .attestedCredentialDataMissing }
        let key = try CredentialPublicKey(cbor: credential.publicKeyCBOR)

        return RegisteredCredential(
            credentialID: credential.credentialID,
            publicKey: credential.publicKey,
            algorithm: key.algorithm,
            signCount: authData.signCount,
            aaguid: credential.aaguid,
            isBackupEligible: authData.flags.contains(.backupEligible),
            isBackedUp: authData.flags.contains(.backupState),
            isUserVerified: authData.flags.contains(.userVerified),
            attestationFormat: attestation.format
        )
    }
}
