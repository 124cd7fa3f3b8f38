import Foundation
import WebAuthn

/// The fixtures written by `Tests/WebAuthnTests/Fixtures/make_fixtures.py` (a Python software
/// authenticator whose output py_webauthn checked), read from the source tree.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func load<Case: Decodable>(_ file: String, as _: Case.Type) throws -> FixtureFile<Case> {
        let data = try Data(contentsOf: directory.appendingPathComponent(file))
        return try JSONDecoder().decode(FixtureFile<Case>.self, from: data)
    }

    static func registrations() throws -> [RegistrationCase] {
        try load("registrations.json", as: RegistrationCase.self).cases
    }

    static func assertions() throws -> [AssertionCase] {
        try load("assertions.json", as: AssertionCase.self).cases
    }

    /// The relying party all fixtures were made for.
    static let relyingParty = RelyingParty(id: "id.example.com", origin: "https://id.example.com")
}

struct FixtureFile<Case: Decodable>: Decodable {
    let rpId: String
    let origin: String
    let cases: [Case]
}

/// What the Swift verifier must conclude: success with these values, or the named error.
struct Expectation: Decodable, Sendable {
    let ok: Bool
    let error: String?
    let credentialID: String?
    let publicKey: String?
    let algorithm: Int?
    let signCount: UInt32?
    let aaguid: String?
    let userVerified: Bool?
    let backupEligible: Bool?
    let backedUp: Bool?
    let fmt: String?
    let stored: UInt32?
    let received: UInt32?
    let bits: Int?
}

struct RegistrationCase: Decodable, Sendable, CustomStringConvertible {
    let name: String
    let challenge: String
    let requireUserVerification: Bool
    let credential: PasskeyRegistrationResponse
    let expect: Expectation
    let pyWebauthn: String
    var description: String { name }
}

struct AssertionCase: Decodable, Sendable, CustomStringConvertible {
    struct Stored: Decodable, Sendable { let publicKey: String; let signCount: UInt32 }
    let name: String
    let challenge: String
    let requireUserVerification: Bool
    let storedCredential: Stored
    let credential: PasskeyAssertionResponse
    let expect: Expectation
    let pyWebauthn: String
    var description: String { name }
}

/// Base64url decoding for test data, independent of the library's own decoder.
func base64URLDecode(_ text: String) -> [UInt8] {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Array(Data(base64Encoded: base64) ?? Data())
}

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
