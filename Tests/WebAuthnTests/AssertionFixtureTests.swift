import Testing
import WebAuthn

/// Sign-ins from the Python software authenticator, each already judged by py_webauthn.
@Suite("Assertion against py_webauthn fixtures")
struct AssertionFixtureTests {
    @Test("fixtures are present", .tags(.crossCheck))
    func fixturesLoad() throws {
        #expect(try Fixtures.assertions().count >= 15)
    }

    @Test("each fixture", .tags(.crossCheck), arguments: try Fixtures.assertions())
    func fixture(_ test: AssertionCase) throws {
        let outcome = Result { () throws(WebAuthnError) in try verify(test) }
        let expect = test.expect
        switch outcome {
        case .success(let verified):
            try #require(expect.ok, "accepted, but expected \(expect.error ?? "")")
            #expect(verified.signCount == expect.signCount)
            #expect(verified.isUserVerified == expect.userVerified)
            #expect(verified.isBackedUp == expect.backedUp)
            #expect(verified.flags.contains(.userPresent))
        case .failure(let error):
            #expect(!expect.ok, "refused: \(error)")
            #expect(error.caseName == expect.error)
            if case .counterDidNotIncrease(let stored, let received) = error {
                #expect(stored == expect.stored && received == expect.received)
            }
        }
    }

    @Test("the same sign-in cannot be replayed once its counter is stored")
    func replayAfterCounterUpdate() throws {
        let test = try #require(try Fixtures.assertions().first { $0.name == "rs256-get" })
        let first = try verify(test)
        #expect(first.signCount == 6)
        #expect(throws: WebAuthnError.counterDidNotIncrease(stored: 6, received: 6)) {
            try verify(test, storedSignCount: first.signCount)
        }
    }

    @Test("a caller can catch the counter case by name, apart from other refusals")
    func catchCounterByName() throws {
        let test = try #require(try Fixtures.assertions().first { $0.name == "rs256-get" })
        var securityEvents = 0
        do throws(WebAuthnError) {
            _ = try verify(test, storedSignCount: 6)
        } catch .counterDidNotIncrease(let stored, let received) {
            #expect(stored == 6 && received == 6)
            securityEvents += 1
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(securityEvents == 1)
    }

    @Test("the signature is checked with the stored key, not any key")
    func otherCredentialsKey() throws {
        let es256 = try #require(try Fixtures.assertions().first { $0.name == "es256-get-counter-0-0" })
        let rs256 = try #require(try Fixtures.assertions().first { $0.name == "rs256-get" })
        #expect(throws: WebAuthnError.signatureInvalid) {
            try verify(es256, publicKey: base64URLDecode(rs256.storedCredential.publicKey))
        }
    }

    @Test("an assertion whose client data says crossOrigin true is refused")
    func crossOrigin() throws {
        // Only the registration fixture carries crossOrigin: true; assertion code shares the check.
        let test = try #require(try Fixtures.registrations().first { $0.name == "reg-cross-origin" })
        #expect(throws: WebAuthnError.crossOriginNotAllowed) {
            try Fixtures.relyingParty.verifyRegistration(
                clientDataJSON: test.credential.clientDataJSON, attestationObject: test.credential.attestationObject,
                expectedChallenge: base64URLDecode(test.challenge), requireUserVerification: false)
        }
    }

    @Test("a stored EdDSA key is refused as unsupported")
    func storedEdDSAKey() throws {
        let eddsa = try #require(try Fixtures.registrations().first { $0.name == "eddsa-none" })
        let test = try #require(try Fixtures.assertions().first { $0.name == "es256-get-counter-0-0" })
        let key = try eddsaPublicKey(eddsa)
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-8)) { try verify(test, publicKey: key) }
    }

    private func eddsaPublicKey(_ registration: RegistrationCase) throws -> [UInt8] {
        let object = try CBORDecoder().decode(registration.credential.attestationObject)
        let authData = try #require(object.mapValue?[.text("authData")]?.bytesValue)
        // authData is only partly valid for us (EdDSA): take the key bytes by layout.
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        return Array(authData[(55 + idLength)...])
    }

    private func verify(_ test: AssertionCase, storedSignCount: UInt32? = nil,
                        publicKey: [UInt8]? = nil) throws(WebAuthnError) -> VerifiedAssertion {
        try Fixtures.relyingParty.verifyAssertion(
            clientDataJSON: test.credential.clientDataJSON,
            authenticatorData: test.credential.authenticatorData,
            signature: test.credential.signature,
            credential: StoredCredential(publicKey: publicKey ?? base64URLDecode(test.storedCredential.publicKey),
                                         signCount: storedSignCount ?? test.storedCredential.signCount),
            expectedChallenge: base64URLDecode(test.challenge),
            requireUserVerification: test.requireUserVerification)
    }
}
