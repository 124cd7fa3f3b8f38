/// The attestation object returned at registration (WebAuthn §6.5): a CBOR map of
/// `fmt`, `attStmt` and `authData`.
///
/// Attestation statements are not verified. Registration asks for
/// `attestation: "none"`, so the server never relies on the authenticator's make
/// or model; yet browsers may still pass through a statement (for example `packed`
/// self-attestation, which carries nothing identifying). Such a statement is
/// accepted and ignored, which gives exactly the assurance of `none` (WebAuthn
/// §7.1, step 21 allows treating an unverified attestation as no attestation).
/// Format `none` must have an empty statement, as its definition requires.
struct AttestationObject: Sendable {
    let format: String
    let authenticatorData: [UInt8]

    static let maxLength = 64 * 1024

    static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> AttestationObject {
        guard bytes.count <= maxLength else { throw .inputTooLarge(what: "attestation object", limit: maxLength) }
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw .attestationObjectMalformed(error.description)
        }
        guard let map = value.mapValue else { throw .attestationObjectMalformed("it is not a CBOR map.") }
        guard let format = map[.text("fmt")]?.textValue, !format.isEmpty else {
            throw .attestationObjectMalformed("the format (\"fmt\") is missing or not text.")
        }
        guard let statement = map[.text("attStmt")]?.mapValue else {
            throw .attestationObjectMalformed("the attestation statement (\"attStmt\") is missing or not a map.")
        }
        guard let authenticatorData = map[.text("authData")]?.bytesValue else {
            throw .attestationObjectMalformed("the authenticator data (\"authData\") is missing or not a byte string.")
        }
        if format == "none" && !statement.isEmpty {
            throw .attestationObjectMalformed("format \"none\" must carry an empty attestation statement.")
        }
        return AttestationObject(format: format, authenticatorData: authenticatorData)
    }
}
