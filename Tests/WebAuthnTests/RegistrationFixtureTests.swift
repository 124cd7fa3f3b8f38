import Testing
import WebAuthn

/// Registrations from the Python software authenticator, each already judged by
/// py_webauthn; the Swift verifier must agree (or be stricter where the contract says).
@Suite("Registration against py_webauthn fixtures")
struct RegistrationFixtureTests {
    @Test("fixtures are present", .tags(.crossCheck))
    func fixturesLoad() throws {
        #expect(try Fixtures.registrations().count >= 15)
    }

    @Test("each fixture", .tags(.crossCheck), arguments: try Fixtures.registrations())
    func fixture(_ test: RegistrationCase) throws {
        let outcome = Result { () throws(WebAuthnError) in
            try Fixtures.relyingParty.verifyRegistration(
                clientDataJSON: test.credential.clientDataJSON,
                attestationObject: test.credential.attestationObject,
                expectedChallenge: base64URLDecode(test.challenge),
                requireUserVerification: test.requireUserVerification)
        }
        let expect = test.expect
        switch outcome {
        case .success(let registered):
            try #require(expect.ok, "accepted, but expected \(expect.error ?? "")")
            #expect(registered.credentialID == base64URLDecode(try #require(expect.credentialID)))
            #expect(registered.credentialID == test.credential.credentialID)
            #expect(registered.publicKey == base64URLDecode(try #require(expect.publicKey)))
            #expect(registered.algorithm.rawValue == expect.algorithm)
            #expect(registered.signCount == expect.signCount)
            #expect(hex(registered.aaguid) == expect.aaguid?.replacingOccurrences(of: "-", with: ""))
            #expect(registered.isUserVerified == expect.userVerified)
            #expect(registered.isBackupEligible == expect.backupEligible)
            #expect(registered.isBackedUp == expect.backedUp)
            #expect(registered.attestationFormat == expect.fmt)
        case .failure(let error):
            #expect(!expect.ok, "refused: \(error)")
            #expect(error.caseName == expect.error)
            if case .unsupportedAlgorithm(let algorithm) = error { #expect(algorithm == expect.algorithm) }
            if case .rsaKeyTooSmall(let bits) = error { #expect(bits == expect.bits) }
        }
    }

    @Test("the stored key of a registration verifies that authenticator's sign-ins", .tags(.crossCheck))
    func registrationKeyMatchesAssertionKey() throws {
        let registrations = try Fixtures.registrations()
        let assertions = try Fixtures.assertions()
        for (registration, assertion) in [("es256-none", "es256-get-counter-0-0"), ("rs256-none", "rs256-get")] {
            let reg = try #require(registrations.first { $0.name == registration })
            let get = try #require(assertions.first { $0.name == assertion })
            let registered = try Fixtures.relyingParty.verifyRegistration(
                clientDataJSON: reg.credential.clientDataJSON, attestationObject: reg.credential.attestationObject,
                expectedChallenge: base64URLDecode(reg.challenge), requireUserVerification: false)
            let verified = try Fixtures.relyingParty.verifyAssertion(
                clientDataJSON: get.credential.clientDataJSON, authenticatorData: get.credential.authenticatorData,
                signature: get.credential.signature,
                credential: StoredCredential(publicKey: registered.publicKey, signCount: registered.signCount),
                expectedChallenge: base64URLDecode(get.challenge), requireUserVerification: false)
            #expect(verified.signCount == get.expect.signCount)
        }
    }

    @Test("a response made for this server is refused by a relying party with another origin or RP ID")
    func otherRelyingParties() throws {
        let test = try #require(try Fixtures.registrations().first { $0.name == "es256-none" })
        let parties = [
            (RelyingParty(id: "id.example.com", origin: "https://id.example.com:8443"), "originMismatch"),
            (RelyingParty(id: "id.example.com", origin: "http://id.example.com"), "originMismatch"),
            (RelyingParty(id: "example.com", origin: "https://id.example.com"), "rpIDHashMismatch"),
        ]
        for (party, expected) in parties {
            let error = #expect(throws: WebAuthnError.self) {
                try party.verifyRegistration(
                    clientDataJSON: test.credential.clientDataJSON, attestationObject: test.credential.attestationObject,
                    expectedChallenge: base64URLDecode(test.challenge), requireUserVerification: false)
            }
            #expect(error?.caseName == expected)
        }
    }
}

extension Tag {
    /// Checked against fixtures that py_webauthn also verified.
    @Tag static var crossCheck: Self
}
