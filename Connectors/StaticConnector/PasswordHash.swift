import Crypto
import CryptoExtras
import Foundation
import IdentityCore

/// A PHC-format password hash (docs/connectors/static.md, "Password hashes"):
/// `$pbkdf2-sha256$i=N$salt$hash` or `$scrypt$ln=L,r=R,p=P$salt$hash`, salt and hash in standard
/// base64 without padding.
public struct PasswordHash: Sendable, Equatable {
    public enum Scheme: Sendable, Equatable {
        case pbkdf2SHA256(iterations: Int)
        case scrypt(logN: Int, r: Int, p: Int)
    }

    public let scheme: Scheme
    public let salt: [UInt8]
    public let hash: [UInt8]

    public static let minimumIterations = 10_000
    public static let defaultIterations = 600_000

    /// Parses a PHC string; the error says what is wrong (for config problems).
    public init(phc text: String) throws {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty else {
            throw PasswordHashError("must be a PHC string $pbkdf2-sha256$i=N$salt$hash or $scrypt$ln=L,r=R,p=P$salt$hash")
        }
        let parameters = Self.parameters(parts[2])
        switch parts[1] {
        case "pbkdf2-sha256":
            guard let iterations = parameters["i"], parameters.count == 1 else { throw PasswordHashError("pbkdf2-sha256 needs exactly i=<iterations>") }
            guard iterations >= Self.minimumIterations, iterations <= 10_000_000 else {
                throw PasswordHashError("pbkdf2-sha256 iterations must be between \(Self.minimumIterations) and 10000000")
            }
            scheme = .pbkdf2SHA256(iterations: iterations)
        case "scrypt":
            guard let logN = parameters["ln"], let r = parameters["r"], let p = parameters["p"], parameters.count == 3 else {
                throw PasswordHashError("scrypt needs ln=, r= and p=")
            }
            guard (1...20).contains(logN), (1...32).contains(r), (1...16).contains(p),
                  128 * r * (1 << logN) <= 256 * 1024 * 1024 else {
                throw PasswordHashError("scrypt parameters out of range (ln 1-20, r 1-32, p 1-16, memory at most 256 MiB)")
            }
            scheme = .scrypt(logN: logN, r: r, p: p)
        default:
            throw PasswordHashError("unsupported hash scheme '\(parts[1])' (use pbkdf2-sha256 or scrypt)")
        }
        guard let salt = Self.decode(parts[3]), salt.count >= 8 else { throw PasswordHashError("salt must be base64, at least 8 bytes") }
        guard let hash = Self.decode(parts[4]), (16...64).contains(hash.count) else { throw PasswordHashError("hash must be base64, 16-64 bytes") }
        self.salt = salt
        self.hash = hash
    }

    /// Computes a new PBKDF2-SHA256 hash with a random 16-byte salt.
    public static func pbkdf2(password: String, iterations: Int = defaultIterations) throws -> String {
        let salt = Secrets.randomBytes(16)
        let derived = try derive(.pbkdf2SHA256(iterations: iterations), password: password, salt: salt, length: 32)
        return "$pbkdf2-sha256$i=\(iterations)$\(encode(salt))$\(encode(derived))"
    }

    /// Checks `password` in time independent of where the bytes differ. Blocking: CPU-bound by design.
    public func verify(_ password: String) -> Bool {
        guard let derived = try? Self.derive(scheme, password: password, salt: salt, length: hash.count),
              derived.count == hash.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(derived, hash) { difference |= a ^ b }
        return difference == 0
    }

    static func derive(_ scheme: Scheme, password: String, salt: [UInt8], length: Int) throws -> [UInt8] {
        let key: SymmetricKey
        switch scheme {
        case .pbkdf2SHA256(let iterations):
            key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: length, unsafeUncheckedRounds: iterations)
        case .scrypt(let logN, let r, let p):
            key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: length,
                                           rounds: 1 << logN, blockSize: r, parallelism: p)
        }
        return key.withUnsafeBytes { Array($0) }
    }

    private static func parameters(_ text: Substring) -> [String: Int] {
        var result: [String: Int] = [:]
        for pair in text.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let value = Int(kv[1]) { result[String(kv[0])] = value }
        }
        return result
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        guard !padded.contains("=") else { return nil }
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map(Array.init)
    }
}

public struct PasswordHashError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
