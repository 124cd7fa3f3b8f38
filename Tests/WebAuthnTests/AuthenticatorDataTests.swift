import Crypto
import Testing
import WebAuthn

@Suite("Authenticator data layout")
struct AuthenticatorDataTests {
    let rpIDHash = Array(SHA256.hash(data: Array("id.example.com".utf8)))

    private func header(flags: UInt8, count: UInt32 = 0x0102_0304) -> [UInt8] {
        rpIDHash + [flags] + [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    }

    private var coseKey: [UInt8] {
        let raw = Array(P256.Signing.PrivateKey().publicKey.rawRepresentation)
        return CBORWriter.encodeMap([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                                     (.int(-2), .bytes(Array(raw[0..<32]))), (.int(-3), .bytes(Array(raw[32...])))])
    }

    private func attested(idLength: Int, id: [UInt8]? = nil) -> [UInt8] {
        Array(repeating: 0xAA, count: 16) + [UInt8(idLength >> 8), UInt8(idLength & 0xFF)]
            + (id ?? Array(repeating: 0x42, count: idLength))
    }

    private func expectMalformed(_ bytes: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try AuthenticatorData(bytes: bytes)
            Issue.record("accepted malformed authenticator data", sourceLocation: sourceLocation)
        } catch {
            guard case .authenticatorDataMalformed(let reason) = error else {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test("reads the fixed part: RP ID hash, flags, big-endian counter")
    func fixedPart() throws {
        let data = try AuthenticatorData(bytes: header(flags: 0x1D))
        #expect(data.rpIDHash == rpIDHash)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backupState])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil && data.extensions == nil)
    }

    @Test("reads attested credential data and extensions, keeping the key's exact bytes")
    func attestedAndExtensions() throws {
        let key = coseKey
        let extensions = CBORWriter.encodeMap([(.text("credProtect"), .int(2))])
        let data = try AuthenticatorData(bytes: header(flags: 0xC1) + attested(idLength: 1023) + key + extensions)
        let credential = try #require(data.attestedCredentialData)
        #expect(credential.credentialID.count == 1023)
        #expect(credential.aaguid == Array(repeating: 0xAA, count: 16))
        #expect(credential.publicKey == key)
        #expect(data.extensions == .map([.text("credProtect"): .int(2)]))
    }

    @Test("refuses data that breaks the layout")
    func layoutErrors() {
        expectMalformed(Array(header(flags: 0x01).prefix(36)), "at least 37")
        expectMalformed(header(flags: 0x01) + [0], "unexpected byte")
        expectMalformed(header(flags: 0x41) + Array(repeating: 0, count: 17), "cut short before the credential ID length")
        expectMalformed(header(flags: 0x41) + attested(idLength: 1024) + coseKey, "at most 1023")
        expectMalformed(header(flags: 0x41) + attested(idLength: 0) + coseKey, "empty")
        expectMalformed(header(flags: 0x41) + attested(idLength: 40, id: [1, 2, 3]), "credential ID is cut short")
        expectMalformed(header(flags: 0x41) + attested(idLength: 16), "not valid CBOR")
        expectMalformed(header(flags: 0x41) + attested(idLength: 16) + coseKey + [0xA0], "unexpected byte")
        expectMalformed(header(flags: 0x81), "no extensions follow")
        expectMalformed(header(flags: 0x81) + [0x01], "not a CBOR map")
        expectMalformed(header(flags: 0x81) + [0xBF, 0xFF], "not valid CBOR")
        expectMalformed(header(flags: 0x11), "not eligible for backup")
    }

    @Test("refuses oversized input before parsing")
    func oversized() {
        #expect(throws: WebAuthnError.inputTooLarge(what: "authenticator data", limit: 16 * 1024)) {
            try AuthenticatorData(bytes: header(flags: 0x01) + Array(repeating: 0, count: 16 * 1024))
        }
    }
}
