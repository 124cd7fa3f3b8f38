/// The new credential inside registration's authenticator data (WebAuthn §6.5.1):
/// the authenticator model, the credential ID and its public key.
public struct AttestedCredentialData: Sendable, Hashable {
    /// The authenticator model's AAGUID, 16 bytes (all zero when it is not disclosed).
    public let aaguid: [UInt8]
    /// The credential ID the browser will present at sign-in.
    public let credentialID: [UInt8]
    /// The credential public key exactly as the authenticator encoded it (COSE_Key).
    public let publicKey: [UInt8]
    /// The same key, decoded; parsed with ``CredentialPublicKey`` when it is used.
    let publicKeyCBOR: CBORValue

    /// The largest credential ID WebAuthn allows.
    static let maxCredentialIDLength = 1023

    /// Reads attested credential data at the start of `bytes` and returns it with
    /// the number of bytes it used.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) -> (AttestedCredentialData, Int) {
        var cursor = bytes.startIndex
        guard bytes.endIndex - cursor >= 18 else {
            throw .authenticatorDataMalformed("the attested credential data is cut short before the credential ID length.")
        }
        let aaguid = Array(bytes[cursor..<cursor + 16])
        cursor += 16
        let idLength = Int(bytes[cursor]) << 8 | Int(bytes[cursor + 1])
        cursor += 2
        guard idLength > 0 else { throw .authenticatorDataMalformed("the credential ID is empty.") }
        guard idLength <= maxCredentialIDLength else {
            throw .authenticatorDataMalformed("the credential ID is \(idLength) bytes long; at most \(maxCredentialIDLength) are allowed.")
        }
        guard bytes.endIndex - cursor >= idLength else {
            throw .authenticatorDataMalformed("the credential ID is cut short.")
        }
        let credentialID = Array(bytes[cursor..<cursor + idLength])
        cursor += idLength
        let decoded: (value: CBORValue, length: Int)
        do {
            decoded = try CBORDecoder().decodePrefix(bytes[cursor...])
        } catch {
            throw .authenticatorDataMalformed("the credential public key is not valid CBOR. \(error.description)")
        }
        let publicKey = Array(bytes[cursor..<cursor + decoded.length])
        cursor += decoded.length
        let data = AttestedCredentialData(aaguid: aaguid, credentialID: credentialID,
                                          publicKey: publicKey, publicKeyCBOR: decoded.value)
        return (data, cursor - bytes.startIndex)
    }
}
