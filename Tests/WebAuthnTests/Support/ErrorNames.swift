import WebAuthn

extension WebAuthnError {
    /// The case name, to compare with the fixtures' expected error.
    var caseName: String {
        switch self {
        case .invalidRelyingParty: "invalidRelyingParty"
        case .inputTooLarge: "inputTooLarge"
        case .clientDataMalformed: "clientDataMalformed"
        case .ceremonyTypeMismatch: "ceremonyTypeMismatch"
        case .challengeMismatch: "challengeMismatch"
        case .originMismatch: "originMismatch"
        case .crossOriginNotAllowed: "crossOriginNotAllowed"
        case .attestationObjectMalformed: "attestationObjectMalformed"
        case .authenticatorDataMalformed: "authenticatorDataMalformed"
        case .rpIDHashMismatch: "rpIDHashMismatch"
        case .userNotPresent: "userNotPresent"
        case .userNotVerified: "userNotVerified"
        case .attestedCredentialDataMissing: "attestedCredentialDataMissing"
        case .unsupportedAlgorithm: "unsupportedAlgorithm"
        case .publicKeyMalformed: "publicKeyMalformed"
        case .rsaKeyTooSmall: "rsaKeyTooSmall"
        case .signatureInvalid: "signatureInvalid"
        case .counterDidNotIncrease: "counterDidNotIncrease"
        }
    }
}

/// A seeded generator (SplitMix64), so a failing random input can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
