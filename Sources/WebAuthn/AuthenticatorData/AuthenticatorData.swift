import Crypto

/// Authenticator data (WebAuthn §6.1): what the authenticator signs about itself.
///
/// Layout: rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ attested
/// credential data (when AT) ‖ extensions CBOR map (when ED). Parsing is strict:
/// the data must end exactly where the flags say it does.
public struct AuthenticatorData: Sendable, Hashable {
    /// SHA-256 of the RP ID the authenticator used.
    public let rpIDHash: [UInt8]
    public let flags: AuthenticatorFlags
    /// The signature counter; zero when the authenticator does not keep one.
    public let signCount: UInt32
    /// Present when the AT flag is set (always at registration).
    public let attestedCredentialData: AttestedCredentialData?
    /// The extension outputs, present when the ED flag is set.
    public let extensions: CBORValue?

    /// The largest authenticator data accepted: ample for a 1023-byte credential ID,
    /// an RSA key and extensions.
    static let maxLength = 16 * 1024
    static let fixedLength = 37

    /// Parses authenticator data as received from the browser.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count <= Self.maxLength else { throw .inputTooLarge(what: "authenticator data", limit: Self.maxLength) }
        guard bytes.count >= Self.fixedLength else {
            throw .authenticatorDataMalformed("it is \(bytes.count) bytes long; at least \(Self.fixedLength) are required.")
        }
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var cursor = Self.fixedLength
        if flags.contains(.attestedCredentialData) {
            let (data, length) = try AttestedCredentialData.parse(bytes[cursor...])
            attestedCredentialData = data
            cursor += length
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            guard cursor < bytes.count else {
                throw .authenticatorDataMalformed("the extension-data flag is set but no extensions follow.")
            }
            let decoded: (value: CBORValue, length: Int)
            do {
                decoded = try CBORDecoder().decodePrefix(bytes[cursor...])
            } catch {
                throw .authenticatorDataMalformed("the extensions are not valid CBOR. \(error.description)")
            }
            guard decoded.value.mapValue != nil else {
                throw .authenticatorDataMalformed("the extensions are not a CBOR map.")
            }
            extensions = decoded.value
            cursor += decoded.length
        } else {
            extensions = nil
        }
        guard cursor == bytes.count else {
            throw .authenticatorDataMalformed("\(bytes.count - cursor) unexpected byte(s) follow the data the flags announce.")
        }
        guard flags.contains(.backupEligible) || !flags.contains(.backupState) else {
            throw .authenticatorDataMalformed("it says the credential is backed up but not eligible for backup.")
        }
    }

    /// Whether the data was made for `rpID`, compared in constant time.
    func matches(rpID: String) -> Bool {
        ConstantTime.equals(rpIDHash, Array(SHA256.hash(data: Array(rpID.utf8))))
    }
}
