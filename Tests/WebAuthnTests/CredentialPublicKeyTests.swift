import Crypto
import Testing
import WebAuthn

@Suite("COSE public keys")
struct CredentialPublicKeyTests {
    private func coseKey(_ entries: [(Int, CBORValue)]) -> [UInt8] {
        CBORWriter.encodeMap(entries.map { (.int($0.0), $0.1) })
    }

    private func es256Key(_ key: P256.Signing.PublicKey, crv: Int = 1, kty: Int = 2) -> [UInt8] {
        let raw = Array(key.rawRepresentation)
        return coseKey([(1, .int(kty)), (3, .int(-7)), (-1, .int(crv)), (-2, .bytes(Array(raw[0..<32]))), (-3, .bytes(Array(raw[32...])))])
    }

    private func expectRefusal(_ expected: WebAuthnError, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: expected, sourceLocation: sourceLocation) { try CredentialPublicKey(coseKey: bytes) }
    }

    private func expectMalformed(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) { try CredentialPublicKey(coseKey: bytes) }
        guard case .publicKeyMalformed = error else {
            Issue.record("expected publicKeyMalformed, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
    }

    @Test("an ES256 key verifies DER signatures made with its private key, and nothing else")
    func es256Signatures() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try CredentialPublicKey(coseKey: es256Key(privateKey.publicKey))
        #expect(key.algorithm == .es256)
        let message = Array("authenticatorData and client data hash".utf8)
        let signature = Array(try privateKey.signature(for: message).derRepresentation)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(signature, for: message + [0]))
        #expect(!key.isValidSignature(Array(try privateKey.signature(for: message).rawRepresentation), for: message))
        #expect(!key.isValidSignature([], for: message))
        #expect(!key.isValidSignature([0x30, 0xFF, 0x02], for: message))
    }

    @Test("EdDSA and other algorithms are refused by number")
    func unsupportedAlgorithms() {
        expectRefusal(.unsupportedAlgorithm(-8), coseKey([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(Array(repeating: 7, count: 32)))]))
        expectRefusal(.unsupportedAlgorithm(-35), coseKey([(1, .int(2)), (3, .int(-35))]))
        expectRefusal(.unsupportedAlgorithm(-37), coseKey([(1, .int(3)), (3, .int(-37))]))
        #expect(WebAuthnError.unsupportedAlgorithm(-8).description.contains("EdDSA"))
    }

    @Test("RSA keys under 2048 bits are refused with their size")
    func smallRSA() {
        let e: CBORValue = .bytes([1, 0, 1])
        let modulus1024 = [0xC1] + Array(repeating: UInt8(0x5A), count: 127)
        expectRefusal(.rsaKeyTooSmall(bits: 1024), coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(modulus1024)), (-2, e)]))
        // Leading zero bytes do not count: 256 bytes but 2040 significant bits.
        let padded = [0x00, 0x80] + Array(repeating: UInt8(0x11), count: 254)
        expectRefusal(.rsaKeyTooSmall(bits: 2040), coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(padded)), (-2, e)]))
        expectRefusal(.rsaKeyTooSmall(bits: 0), coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes([])), (-2, e)]))
        expectMalformed(coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(modulus1024))]))
    }

    @Test("malformed keys are refused with a reason")
    func malformed() throws {
        let publicKey = P256.Signing.PrivateKey().publicKey
        expectMalformed(es256Key(publicKey, crv: 2))
        expectMalformed(es256Key(publicKey, kty: 3))
        expectMalformed(coseKey([(1, .int(2)), (-1, .int(1))]))  // no alg
        expectMalformed(coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Array(repeating: 1, count: 31))), (-3, .bytes(Array(repeating: 1, count: 32)))]))
        expectMalformed(coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Array(repeating: 0, count: 31) + [1])), (-3, .bytes(Array(repeating: 0, count: 31) + [1]))]))
        expectMalformed(CBORWriter.encode(.array([.int(1)])))
        expectMalformed(es256Key(publicKey) + [0x00])
        expectMalformed([])
        let description = WebAuthnError.publicKeyMalformed("the coordinates are not a point on P-256.").description
        #expect(description == "The passkey's public key is malformed: the coordinates are not a point on P-256.")
    }
}
