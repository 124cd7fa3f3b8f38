import Foundation
import Testing
import WebAuthn

/// Responses that `passkeys.js` obtained from Chromium's virtual authenticator
/// (Tests/WebAuthnTests/Fixtures/chromium_fixtures.py), already accepted by py_webauthn: a real
/// browser's output, registered and then used to sign in twice per algorithm.
@Suite("Chromium virtual authenticator")
struct ChromiumFixtureTests {
    struct File: Decodable {
        struct Registration: Decodable {
            let name: String
            let challenge: String
            let credential: PasskeyRegistrationResponse
            let publicKey: String
            let signCount: UInt32
            let fmt: String
        }
        struct Assertion: Decodable {
            let name: String
            let challenge: String
            let credential: PasskeyAssertionResponse
            let signCount: UInt32
        }
        let origin: String
        let registrations: [Registration]
        let assertions: [Assertion]
    }

    @Test("registrations and sign-ins from Chromium verify, with growing counters", .tags(.crossCheck))
    func chromium() throws {
        let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent("chromium.json"))
        let file = try JSONDecoder().decode(File.self, from: data)
        let party = try RelyingParty(issuer: try #require(URL(string: file.origin + "/realm")))
        #expect(party.id == "localhost")
        try #require(file.registrations.count == 2)
        for registration in file.registrations {
            let registered = try party.verifyRegistration(
                clientDataJSON: registration.credential.clientDataJSON,
                attestationObject: registration.credential.attestationObject,
                expectedChallenge: base64URLDecode(registration.challenge), requireUserVerification: true)
            #expect(registered.publicKey == base64URLDecode(registration.publicKey))
            #expect(registered.credentialID == registration.credential.credentialID)
            #expect(registered.signCount == registration.signCount)
            #expect(registered.attestationFormat == registration.fmt)
            #expect(registered.isUserVerified)
            #expect(registration.credential.transports == ["internal"])

            var stored = StoredCredential(publicKey: registered.publicKey, signCount: registered.signCount)
            let prefix = registration.name.replacingOccurrences(of: "-register", with: "")
            let signIns = file.assertions.filter { $0.name.hasPrefix(prefix) }
            try #require(signIns.count == 2)
            for signIn in signIns {
                #expect(signIn.credential.credentialID == registered.credentialID)
                #expect(signIn.credential.userHandle == Array("user-1234".utf8))
                let verified = try party.verifyAssertion(
                    clientDataJSON: signIn.credential.clientDataJSON,
                    authenticatorData: signIn.credential.authenticatorData, signature: signIn.credential.signature,
                    credential: stored, expectedChallenge: base64URLDecode(signIn.challenge),
                    requireUserVerification: true)
                #expect(verified.signCount == signIn.signCount)
                #expect(verified.signCount > stored.signCount)
                stored.signCount = verified.signCount
            }
            #expect(registered.algorithm == (prefix.hasSuffix("es256") ? .es256 : .rs256))
        }
    }
}
