import Crypto
import Foundation
import IdentityCore
import WebAuthn

/// A passkey authenticator in software (P-256, ES256), answering the options the broker's page
/// carries the way a browser would: real signatures the broker's verifier checks.
struct SoftwareAuthenticator {
    let key = P256.Signing.PrivateKey()
    let credentialId = Array(Secrets.randomBytes(16))
    var counter: UInt32 = 0
    var origin = "http://localhost:8080"
    var rpId = "localhost"

    var credentialIdText: String { Base64URL.encode(credentialId) }

    static func encode(_ value: CBORValue) -> [UInt8] {
        func header(_ major: UInt8, _ n: UInt64) -> [UInt8] {
            let m = major << 5
            switch n {
            case 0..<24: return [m | UInt8(n)]
            case 24..<256: return [m | 24, UInt8(n)]
            default: return [m | 25, UInt8(n >> 8), UInt8(n & 0xFF)]
            }
        }
        switch value {
        case .unsigned(let n): return header(0, n)
        case .negative(let n): return header(1, n)
        case .bytes(let b): return header(2, UInt64(b.count)) + b
        case .text(let t): return header(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let a): return header(4, UInt64(a.count)) + a.flatMap(encode)
        case .map(let m): return header(5, UInt64(m.count)) + m.sorted { encode($0.key).lexicographicallyPrecedes(encode($1.key)) }
            .flatMap { encode($0.key) + encode($0.value) }
        case .bool(let b): return [b ? 0xF5 : 0xF4]
        case .null: return [0xF6]
        }
    }

    var coseKey: [UInt8] {
        let raw = Array(key.publicKey.rawRepresentation)
        return Self.encode(.map([.int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1),
                                 .int(-2): .bytes(Array(raw[0..<32])), .int(-3): .bytes(Array(raw[32..<64]))]))
    }

    func clientData(type: String, challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    func authData(flags: UInt8, attested: Bool) -> [UInt8] {
        var data = Array(SHA256.hash(data: Array(rpId.utf8))) + [flags]
        data += [UInt8(counter >> 24 & 0xFF), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        if attested {
            data += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialId.count)] + credentialId + coseKey
        }
        return data
    }

    /// The browser's JSON for `navigator.credentials.create` with `options` (the page's JSON).
    func register(_ options: [String: Any]) throws -> [String: Any] {
        let challenge = options["challenge"] as? String ?? ""
        let attestation = Self.encode(.map([.text("fmt"): .text("none"), .text("attStmt"): .map([:]),
                                            .text("authData"): .bytes(authData(flags: 0x41, attested: true))]))
        return ["id": credentialIdText, "rawId": credentialIdText, "type": "public-key",
                "response": ["clientDataJSON": Base64URL.encode(clientData(type: "webauthn.create", challenge: challenge)),
                             "attestationObject": Base64URL.encode(attestation), "transports": ["internal"]]]
    }

    /// The browser's JSON for `navigator.credentials.get` with `options`.
    func assert(_ options: [String: Any]) throws -> [String: Any] {
        let challenge = options["challenge"] as? String ?? ""
        let data = authData(flags: 0x01, attested: false)
        let client = clientData(type: "webauthn.get", challenge: challenge)
        let signature = try key.signature(for: data + Array(SHA256.hash(data: client))).derRepresentation
        return ["id": credentialIdText, "rawId": credentialIdText, "type": "public-key",
                "response": ["clientDataJSON": Base64URL.encode(client), "authenticatorData": Base64URL.encode(data),
                             "signature": Base64URL.encode(signature), "userHandle": NSNull()]]
    }
}
