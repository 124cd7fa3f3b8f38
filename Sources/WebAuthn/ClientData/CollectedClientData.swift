import Foundation

/// The fields of `clientDataJSON` (WebAuthn §5.8.1) this server checks. The browser
/// writes it; the authenticator signs its SHA-256, so it cannot be altered after
/// the ceremony without breaking the signature.
struct CollectedClientData: Sendable, Decodable {
    /// `webauthn.create` for registration, `webauthn.get` for sign-in.
    let type: String
    /// The challenge, base64url-encoded by the browser.
    let challenge: String
    /// The origin of the page that ran the ceremony.
    let origin: String
    /// True when the ceremony ran in a cross-origin iframe.
    let crossOrigin: Bool?

    /// Larger than any browser sends (they are a few hundred bytes), small enough
    /// that parsing cannot be used to waste memory.
    static let maxLength = 64 * 1024

    static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> CollectedClientData {
        guard bytes.count <= maxLength else { throw .inputTooLarge(what: "client data", limit: maxLength) }
        do {
            return try JSONDecoder().decode(CollectedClientData.self, from: Data(bytes))
        } catch DecodingError.keyNotFound(let key, _) {
            throw .clientDataMalformed("the field \"\(key.stringValue)\" is missing.")
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            throw .clientDataMalformed("the field \"\(context.codingPath[0].stringValue)\" has the wrong type.")
        } catch DecodingError.valueNotFound(_, let context) where !context.codingPath.isEmpty {
            throw .clientDataMalformed("the field \"\(context.codingPath[0].stringValue)\" is null.")
        } catch {
            throw .clientDataMalformed("it is not a JSON object.")
        }
    }

    /// Runs the checks common to both ceremonies: type, challenge (in constant
    /// time), exact origin, and no cross-origin frame.
    func verify(type expectedType: String, challenge expectedChallenge: [UInt8],
                origin expectedOrigin: String) throws(WebAuthnError) {
        guard type == expectedType else {
            throw .ceremonyTypeMismatch(expected: expectedType, received: type)
        }
        guard let received = Base64URL.decode(challenge),
              ConstantTime.equals(received, expectedChallenge) else {
            throw .challengeMismatch
        }
        guard origin == expectedOrigin else {
            throw .originMismatch(expected: expectedOrigin, received: origin)
        }
        guard crossOrigin != true else { throw .crossOriginNotAllowed }
    }
}

/// The `type` values of the two ceremonies.
enum CeremonyType {
    static let create = "webauthn.create"
    static let get = "webauthn.get"
}
