import Foundation
import Testing
import WebAuthn

@Suite("Relying party, options and browser JSON")
struct RelyingPartyTests {
    @Test("RP ID and origin come from the issuer URL", arguments: [
        ("https://id.example.com", "id.example.com", "https://id.example.com"),
        ("https://ID.Example.com/realms/a/", "id.example.com", "https://id.example.com"),
        ("https://id.example.com:443/x", "id.example.com", "https://id.example.com"),
        ("https://id.example.com:8443/x", "id.example.com", "https://id.example.com:8443"),
        ("http://localhost:8080", "localhost", "http://localhost:8080"),
    ])
    func fromIssuer(issuer: String, id: String, origin: String) throws {
        let party = try RelyingParty(issuer: try #require(URL(string: issuer)))
        #expect(party.id == id)
        #expect(party.origin == origin)
    }

    @Test("an issuer without a usable scheme or host is refused")
    func badIssuer() throws {
        for text in ["ftp://id.example.com", "file:///tmp/x", "urn:example", "https://192.0.2.1/", "http://[::1]:8080/"] {
            #expect(throws: WebAuthnError.self) { try RelyingParty(issuer: try #require(URL(string: text))) }
        }
    }

    @Test("a short expected challenge is a caller error, not a match")
    func shortChallenge() throws {
        let test = try #require(try Fixtures.registrations().first { $0.name == "es256-none" })
        let error = #expect(throws: WebAuthnError.self) {
            try Fixtures.relyingParty.verifyRegistration(
                clientDataJSON: test.credential.clientDataJSON, attestationObject: test.credential.attestationObject,
                expectedChallenge: [1, 2, 3], requireUserVerification: false)
        }
        #expect(error?.caseName == "invalidRelyingParty")
    }

    @Test("client data that is not the WebAuthn object is refused with the field named")
    func malformedClientData() throws {
        let test = try #require(try Fixtures.registrations().first { $0.name == "es256-none" })
        let cases: [(String, String)] = [
            ("not json", "not a JSON object"),
            ("[]", "not a JSON object"),
            (#"{"type":"webauthn.create","origin":"https://id.example.com"}"#, "\"challenge\" is missing"),
            (#"{"type":"webauthn.create","challenge":"AAAA","origin":"https://id.example.com","crossOrigin":"no"}"#, "\"crossOrigin\" has the wrong type"),
        ]
        for (json, fragment) in cases {
            let error = #expect(throws: WebAuthnError.self) {
                try Fixtures.relyingParty.verifyRegistration(
                    clientDataJSON: Array(json.utf8), attestationObject: test.credential.attestationObject,
                    expectedChallenge: base64URLDecode(test.challenge), requireUserVerification: false)
            }
            guard case .clientDataMalformed(let reason) = error else {
                Issue.record("unexpected \(String(describing: error)) for \(json)")
                continue
            }
            #expect(reason.contains(fragment), "\(reason)")
        }
    }

    @Test("error text quotes client values sanitized and short")
    func sanitizedMessages() {
        let hostile = "https://evil.example/\u{1B}[31m\n" + String(repeating: "A", count: 500)
        let text = WebAuthnError.originMismatch(expected: "https://id.example.com", received: hostile).description
        #expect(!text.contains("\u{1B}") && !text.contains("\n"))
        #expect(text.count < 250)
        #expect(WebAuthnError.counterDidNotIncrease(stored: 6, received: 6).description.contains("cloned"))
    }

    @Test("creation options carry the product contract")
    func creationOptions() throws {
        let options = PasskeyCreationOptions(
            relyingParty: Fixtures.relyingParty, relyingPartyName: "Identity Connect", userID: [1, 2, 3, 4],
            userName: "alice@example.com", userDisplayName: "Alice", challenge: Array(repeating: 0xFB, count: 32),
            excludeCredentialIDs: [[0xFF, 0xEE]])
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(options)) as? [String: Any])
        #expect(json["attestation"] as? String == "none")
        let selection = try #require(json["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "preferred")
        #expect(selection["userVerification"] as? String == "preferred")
        let algorithms = (json["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int }
        #expect(algorithms == [-7, -257])
        #expect((json["rp"] as? [String: Any])?["id"] as? String == "id.example.com")
        #expect((json["user"] as? [String: Any])?["id"] as? String == "AQIDBA")
        #expect(json["challenge"] as? String == String(repeating: "-_v7", count: 10) + "-_s")
        #expect((json["excludeCredentials"] as? [[String: Any]])?.first?["id"] as? String == "_-4")
    }

    @Test("request options name the RP ID and allowed credentials")
    func requestOptions() throws {
        let options = PasskeyRequestOptions(relyingParty: Fixtures.relyingParty, challenge: Array(repeating: 0, count: 16),
                                            allowCredentialIDs: [[1]], userVerification: .required)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(options)) as? [String: Any])
        #expect(json["rpId"] as? String == "id.example.com")
        #expect(json["userVerification"] as? String == "required")
        #expect((json["allowCredentials"] as? [[String: Any]])?.first?["type"] as? String == "public-key")
    }

    @Test("browser responses whose id and rawId disagree, or whose type is wrong, do not decode")
    func responseDecoding() throws {
        let good = #"{"id":"AQI","rawId":"AQI","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":null}}"#
        let decoded = try JSONDecoder().decode(PasskeyAssertionResponse.self, from: Data(good.utf8))
        #expect(decoded.credentialID == [1, 2])
        #expect(decoded.userHandle == nil)
        for bad in [good.replacingOccurrences(of: #""id":"AQI""#, with: #""id":"AQM""#),
                    good.replacingOccurrences(of: "public-key", with: "password"),
                    good.replacingOccurrences(of: #""signature":"AA""#, with: #""signature":"A*A""#)] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(PasskeyAssertionResponse.self, from: Data(bad.utf8)) }
        }
    }

    @Test("the browser script is embedded and defines both functions")
    func script() {
        #expect(PasskeysScript.source.contains("async function registerPasskey(options)"))
        #expect(PasskeysScript.source.contains("async function signInWithPasskey(options)"))
        #expect(!PasskeysScript.source.contains("http"))  // no CDN, nothing fetched
    }
}
