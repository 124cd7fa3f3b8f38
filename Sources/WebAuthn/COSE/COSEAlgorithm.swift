/// The COSE signature algorithms this server accepts for passkeys (IANA COSE
/// Algorithms registry). Registration offers exactly these two, in this order.
public enum COSEAlgorithm: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ECDSA over P-256 with SHA-256; the signature is DER-encoded.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257

    public var description: String {
        switch self {
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }

    /// The name of a common COSE algorithm number, for error messages only.
    static func knownName(_ value: Int) -> String? {
        switch value {
        case -7: "ES256"
        case -8: "EdDSA"
        case -35: "ES384"
        case -36: "ES512"
        case -37: "PS256"
        case -38: "PS384"
        case -39: "PS512"
        case -47: "ES256K"
        case -257: "RS256"
        case -258: "RS384"
        case -259: "RS512"
        case -65535: "RS1"
        default: nil
        }
    }
}
