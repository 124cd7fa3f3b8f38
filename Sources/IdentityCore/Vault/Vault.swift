import Crypto
import Foundation

/// Seals and opens secrets at rest with AES-256-GCM (docs/operations.md, "Vault").
///
/// Sealed form: `0x01 | len(keyId) | keyId | nonce(12) | ciphertext | tag(16)`. The key id travels
/// with the ciphertext so any configured key can open it; the associated data binds the purpose
/// and the owning row, so a ciphertext copied to another row does not open.
public struct Vault: Sendable {
    public struct Key: Sendable {
        public let id: String
        let key: SymmetricKey

        public init(id: String, bytes: [UInt8]) throws {
            guard bytes.count == 32 else { throw VaultError.badKey("vault key \(id) must be 32 bytes") }
            guard !id.isEmpty, id.utf8.count < 256 else { throw VaultError.badKey("vault key id must be 1–255 bytes") }
            self.id = id
            self.key = SymmetricKey(data: bytes)
        }
    }

    /// What a sealed value is for; part of the associated data.
    public struct Binding: Sendable {
        public var purpose: String
        public var owner: String
        public var scope: String

        /// - Parameters:
        ///   - purpose: e.g. `upstream`, `signing-key`, `grace`.
        ///   - owner: the row the value belongs to (session id, key id, family id).
        ///   - scope: the auth service (or other namespace) it belongs to.
        public init(purpose: String, owner: String, scope: String = "") {
            self.purpose = purpose
            self.owner = owner
            self.scope = scope
        }

        var associatedData: Data { Data("idconnect-vault-v1\u{0}\(purpose)\u{0}\(owner)\u{0}\(scope)".utf8) }
    }

    public let keys: [Key]

    /// - Parameter keys: the first seals; all of them open.
    public init(keys: [Key]) throws {
        guard !keys.isEmpty else { throw VaultError.badKey("the vault needs at least one key") }
        self.keys = keys
    }

    public var activeKeyId: String { keys[0].id }

    public func seal(_ plaintext: Data, _ binding: Binding) throws -> Data {
        let active = keys[0]
        let box = try AES.GCM.seal(plaintext, using: active.key, authenticating: binding.associatedData)
        guard let combined = box.combined else { throw VaultError.cannotOpen("sealing failed") }
        var output = Data([1, UInt8(active.id.utf8.count)])
        output.append(contentsOf: Array(active.id.utf8))
        output.append(combined)
        return output
    }

    public func seal(_ text: String, _ binding: Binding) throws -> Data { try seal(Data(text.utf8), binding) }

    public func open(_ sealed: Data, _ binding: Binding) throws -> Data {
        guard let keyId = Self.keyId(of: sealed) else { throw VaultError.cannotOpen("not a sealed value") }
        guard let key = keys.first(where: { $0.id == keyId }) else {
            throw VaultError.cannotOpen("sealed under unknown vault key \(keyId)")
        }
        let start = sealed.startIndex + 2 + keyId.utf8.count
        do {
            let box = try AES.GCM.SealedBox(combined: sealed[start...])
            return try AES.GCM.open(box, using: key.key, authenticating: binding.associatedData)
        } catch {
            throw VaultError.cannotOpen("authentication failed")
        }
    }

    public func openString(_ sealed: Data, _ binding: Binding) throws -> String {
        String(decoding: try open(sealed, binding), as: UTF8.self)
    }

    /// Re-seals under the active key; returns nil when it already is.
    public func reseal(_ sealed: Data, _ binding: Binding) throws -> Data? {
        guard Self.keyId(of: sealed) != activeKeyId else { return nil }
        return try seal(try open(sealed, binding), binding)
    }

    /// The id of the key a value was sealed under.
    public static func keyId(of sealed: Data) -> String? {
        let bytes = [UInt8](sealed.prefix(2))
        guard bytes.count == 2, bytes[0] == 1 else { return nil }
        let length = Int(bytes[1])
        guard sealed.count >= 2 + length + 28 else { return nil }
        let idBytes = sealed[(sealed.startIndex + 2)..<(sealed.startIndex + 2 + length)]
        return String(bytes: idBytes, encoding: .utf8)
    }

    /// A fresh random 32-byte key, base64 (what `vault.keys[].secret` holds).
    public static func generateKeyMaterial() -> String {
        Data(Secrets.randomBytes(32)).base64EncodedString()
    }
}

public enum VaultError: Error, CustomStringConvertible {
    case badKey(String)
    case cannotOpen(String)

    public var description: String {
        switch self {
        case .badKey(let text): "vault key error: \(text)"
        case .cannotOpen(let text): "vault cannot open value: \(text)"
        }
    }
}
