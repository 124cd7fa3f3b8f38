/// Why a registration or sign-in was refused.
///
/// Every case has a ``description`` written for the person or operator who will read
/// it; values received from the client are quoted only as short, sanitized text,
/// never as raw bytes. ``counterDidNotIncrease(stored:received:)`` is singled out so
/// the caller can record it as a security event: it is the sign of a cloned
/// authenticator.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The relying party's configuration is unusable (for example an issuer without a host).
    case invalidRelyingParty(String)
    /// An input is larger than any real authenticator or browser would send.
    case inputTooLarge(what: String, limit: Int)
    /// `clientDataJSON` is not the JSON object WebAuthn defines.
    case clientDataMalformed(String)
    /// `clientDataJSON` is for the other ceremony (`webauthn.create` versus `webauthn.get`).
    case ceremonyTypeMismatch(expected: String, received: String)
    /// The challenge signed by the browser is not the one this server issued.
    case challengeMismatch
    /// The page that ran the ceremony is not the expected origin.
    case originMismatch(expected: String, received: String)
    /// The ceremony ran in a cross-origin iframe, which is not accepted.
    case crossOriginNotAllowed
    /// The attestation object is not the CBOR map WebAuthn defines.
    case attestationObjectMalformed(String)
    /// The authenticator data does not follow the WebAuthn layout.
    case authenticatorDataMalformed(String)
    /// The authenticator data was made for another relying party ID.
    case rpIDHashMismatch(expectedRPID: String)
    /// The authenticator did not report that a user was present.
    case userNotPresent
    /// User verification is required and the authenticator did not perform it.
    case userNotVerified
    /// A registration carried no attested credential data (no new credential).
    case attestedCredentialDataMissing
    /// The credential uses a COSE algorithm this server does not accept.
    case unsupportedAlgorithm(Int)
    /// The COSE public key is malformed or does not match its algorithm.
    case publicKeyMalformed(String)
    /// The RSA public key is shorter than 2048 bits.
    case rsaKeyTooSmall(bits: Int)
    /// The signature does not verify with the credential's public key.
    case signatureInvalid
    /// The authenticator's signature counter did not grow: possibly a cloned authenticator.
    case counterDidNotIncrease(stored: UInt32, received: UInt32)

    public var description: String {
        switch self {
        case .invalidRelyingParty(let reason):
            "The passkey relying party is misconfigured: \(reason)"
        case .inputTooLarge(let what, let limit):
            "The \(what) is larger than the \(limit) bytes accepted."
        case .clientDataMalformed(let reason):
            "The browser's client data is malformed: \(reason)"
        case .ceremonyTypeMismatch(let expected, let received):
            "The browser's client data is for ceremony \(DisplayText.quote(received)), but \(DisplayText.quote(expected)) was expected."
        case .challengeMismatch:
            "The passkey response does not answer the challenge this server issued; it may be stale or replayed. Start again."
        case .originMismatch(let expected, let received):
            "The passkey ceremony ran on \(DisplayText.quote(received)), but only \(DisplayText.quote(expected)) is accepted."
        case .crossOriginNotAllowed:
            "The passkey ceremony ran inside a cross-origin frame, which is not accepted."
        case .attestationObjectMalformed(let reason):
            "The authenticator's attestation object is malformed: \(reason)"
        case .authenticatorDataMalformed(let reason):
            "The authenticator data is malformed: \(reason)"
        case .rpIDHashMismatch(let rpID):
            "The passkey was created or used for a different site than \(DisplayText.quote(rpID))."
        case .userNotPresent:
            "The authenticator did not confirm that a user was present."
        case .userNotVerified:
            "The authenticator did not verify the user (PIN or biometrics), which is required."
        case .attestedCredentialDataMissing:
            "The authenticator returned no new credential in its registration response."
        case .unsupportedAlgorithm(let algorithm):
            "The passkey uses COSE algorithm \(algorithm)\(COSEAlgorithm.knownName(algorithm).map { " (\($0))" } ?? ""); only ES256 (-7) and RS256 (-257) are accepted."
        case .publicKeyMalformed(let reason):
            "The passkey's public key is malformed: \(reason)"
        case .rsaKeyTooSmall(let bits):
            "The passkey's RSA key has \(bits) bits; at least 2048 are required."
        case .signatureInvalid:
            "The passkey signature is not valid for this credential."
        case .counterDidNotIncrease(let stored, let received):
            "The authenticator's signature counter did not increase (stored \(stored), received \(received)); the authenticator may have been cloned."
        }
    }
}
