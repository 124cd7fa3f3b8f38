import Foundation

/// The JSON that `registerPasskey` in `passkeys.js` posts back, decoded: binary
/// fields arrive base64url and are decoded here. Decoding fails (with a
/// `DecodingError`) when `type` is not `public-key`, a field is not base64url, or
/// `id` does not match `rawId`.
public struct PasskeyRegistrationResponse: Sendable, Decodable {
    public let credentialID: [UInt8]
    public let clientDataJSON: [UInt8]
    public let attestationObject: [UInt8]
    /// Transport hints (`internal`, `hybrid`, `usb`, ...) worth storing for
    /// `allowCredentials`; empty when the browser gave none.
    public let transports: [String]

    private enum Keys: String, CodingKey { case id, rawId, type, response }
    private enum ResponseKeys: String, CodingKey { case clientDataJSON, attestationObject, transports }

    public init(from decoder: Decoder) throws {
        let outer = try decoder.container(keyedBy: Keys.self)
        credentialID = try CredentialJSON.credentialID(outer, id: .id, rawId: .rawId, type: .type)
        let inner = try outer.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        clientDataJSON = try CredentialJSON.bytes(inner, .clientDataJSON)
        attestationObject = try CredentialJSON.bytes(inner, .attestationObject)
        transports = try inner.decodeIfPresent([String].self, forKey: .transports) ?? []
    }
}

/// The JSON that `signInWithPasskey` in `passkeys.js` posts back, decoded.
public struct PasskeyAssertionResponse: Sendable, Decodable {
    /// Look the stored credential up by this ID.
    public let credentialID: [UInt8]
    public let clientDataJSON: [UInt8]
    public let authenticatorData: [UInt8]
    public let signature: [UInt8]
    /// The user handle (the `userID` given at registration) that a discoverable
    /// passkey returns; the caller checks it names the credential's owner.
    public let userHandle: [UInt8]?

    private enum Keys: String, CodingKey { case id, rawId, type, response }
    private enum ResponseKeys: String, CodingKey { case clientDataJSON, authenticatorData, signature, userHandle }

    public init(from decoder: Decoder) throws {
        let outer = try decoder.container(keyedBy: Keys.self)
        credentialID = try CredentialJSON.credentialID(outer, id: .id, rawId: .rawId, type: .type)
        let inner = try outer.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        clientDataJSON = try CredentialJSON.bytes(inner, .clientDataJSON)
        authenticatorData = try CredentialJSON.bytes(inner, .authenticatorData)
        signature = try CredentialJSON.bytes(inner, .signature)
        let handle = try inner.decodeIfPresent(String.self, forKey: .userHandle)
        userHandle = try handle.flatMap { text in
            guard let bytes = Base64URL.decode(text) else {
                throw DecodingError.dataCorruptedError(forKey: .userHandle, in: inner, debugDescription: "The user handle is not base64url.")
            }
            return bytes.isEmpty ? nil : bytes
        }
    }
}

/// Decoding steps shared by both responses.
enum CredentialJSON {
    static func bytes<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(try container.decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "The field \"\(key.stringValue)\" is not base64url.")
        }
        return bytes
    }

    static func credentialID<K: CodingKey>(_ container: KeyedDecodingContainer<K>, id: K, rawId: K, type: K) throws -> [UInt8] {
        guard try container.decode(String.self, forKey: type) == "public-key" else {
            throw DecodingError.dataCorruptedError(forKey: type, in: container, debugDescription: "The credential type is not \"public-key\".")
        }
        let raw = try bytes(container, rawId)
        guard Base64URL.decode(try container.decode(String.self, forKey: id)) == raw else {
            throw DecodingError.dataCorruptedError(forKey: id, in: container, debugDescription: "The credential id does not match rawId.")
        }
        return raw
    }
}
