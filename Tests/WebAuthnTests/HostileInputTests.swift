import Testing
import WebAuthn

/// Random and mutated inputs: the parsers must always return (a value or an error)
/// and never trap, hang or allocate from a declared length.
@Suite("Hostile input")
struct HostileInputTests {
    private func randomBytes(_ count: Int, _ generator: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Flips, overwrites, inserts, deletes or truncates a few bytes.
    private func mutate(_ input: [UInt8], _ generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1: bytes[index] = [0x00, 0x1B, 0x3B, 0x5B, 0x7B, 0x9B, 0xBB, 0xFF, 0x9F, 0xC0, 0xF9][Int.random(in: 0..<11, using: &generator)]
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
            case 3: bytes.remove(at: index)
            default: bytes = Array(bytes.prefix(index))
            }
        }
        return bytes
    }

    @Test("random bytes never crash the CBOR decoder")
    func randomCBOR() {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        let decoder = CBORDecoder()
        var refused = 0
        for _ in 0..<5000 {
            let input = randomBytes(Int.random(in: 0...64, using: &generator), &generator)
            if (try? decoder.decode(input)) == nil { refused += 1 }
            _ = try? decoder.decodePrefix(input[...])
        }
        #expect(refused > 4000)
    }

    @Test("mutated attestation objects are refused with an error, never a trap", arguments: ["es256-packed-self-ext", "rs256-none"])
    func mutatedRegistrations(name: String) throws {
        let test = try #require(try Fixtures.registrations().first { $0.name == name })
        var generator = SeededGenerator(seed: UInt64(name.utf8.count))
        var accepted = 0
        for _ in 0..<2000 {
            let object = mutate(test.credential.attestationObject, &generator)
            _ = try? CBORDecoder().decode(object)
            do {
                _ = try Fixtures.relyingParty.verifyRegistration(
                    clientDataJSON: test.credential.clientDataJSON, attestationObject: object,
                    expectedChallenge: base64URLDecode(test.challenge), requireUserVerification: false)
                accepted += 1
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // A mutation may land in the ignored attestation statement or in an unsigned
        // registration field, so some acceptances are legitimate; most must fail.
        #expect(accepted < 1000)
    }

    @Test("mutated authenticator data, signatures and client data never verify")
    func mutatedAssertions() throws {
        let test = try #require(try Fixtures.assertions().first { $0.name == "es256-get-counter-0-0" })
        var generator = SeededGenerator(seed: 42)
        let stored = StoredCredential(publicKey: base64URLDecode(test.storedCredential.publicKey), signCount: 0)
        for round in 0..<3000 {
            var authData = test.credential.authenticatorData
            var signature = test.credential.signature
            var clientData = test.credential.clientDataJSON
            switch round % 3 {
            case 0: authData = mutate(authData, &generator)
            case 1: signature = mutate(signature, &generator)
            default: clientData = mutate(clientData, &generator)
            }
            if authData == test.credential.authenticatorData && signature == test.credential.signature
                && clientData == test.credential.clientDataJSON { continue }
            #expect(throws: WebAuthnError.self) {
                try Fixtures.relyingParty.verifyAssertion(
                    clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                    credential: stored, expectedChallenge: base64URLDecode(test.challenge), requireUserVerification: false)
            }
        }
    }

    @Test("random authenticator data and COSE keys never crash their parsers")
    func randomStructures() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<3000 {
            let tail = randomBytes(Int.random(in: 0...80, using: &generator), &generator)
            let flags = UInt8.random(in: 0...255, using: &generator)
            _ = try? AuthenticatorData(bytes: Array(repeating: 0, count: 32) + [flags, 0, 0, 0, 1] + tail)
            _ = try? CredentialPublicKey(coseKey: [0xA5] + tail)
            _ = try? CredentialPublicKey(coseKey: tail)
        }
    }

    @Test("oversized client data and attestation objects are refused before parsing")
    func oversizedInputs() {
        let big = Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1)
        let challenge = Array(repeating: UInt8(1), count: 32)
        #expect(throws: WebAuthnError.inputTooLarge(what: "client data", limit: 64 * 1024)) {
            try Fixtures.relyingParty.verifyRegistration(clientDataJSON: big, attestationObject: [],
                                                         expectedChallenge: challenge, requireUserVerification: false)
        }
    }
}
