import Foundation
import IdentityCore
import JOSE
import Testing

/// Software statements go through the one JWT policy (docs/security.md, "One JWT policy"): before
/// it, registration verified them in a loop of its own that let a `crit` header, a foreign `typ`
/// and an `iat` in the future through.
@Suite("Registration: software statements under the JWT policy")
struct SoftwareStatementHeaderTests {
    /// A statement like ``RegistrationTests/statement(key:exp:claims:)`` with extra header fields.
    static func statement(header extra: [String: Any], exp: Date, claims: [String: Any] = [:]) throws -> String {
        let key = RegistrationTests.statementKey
        var header: [String: Any] = ["alg": "ES256", "kid": key.kid, "typ": "JWT"]
        header.merge(extra) { $1 }
        var payload: [String: Any] = ["iss": "https://vendor.example.com", "software_id": "CSI", "exp": Int(exp.timeIntervalSince1970),
                                      "redirect_uris": [TestBroker.nativeRedirect], "scope": "openid native"]
        payload.merge(claims) { $1 }
        let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: header)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        return input + "." + Base64URL.encode(try key.sign(Data(input.utf8)))
    }

    @Test("an unknown crit extension, a typ of another kind of JWT, a nested JWT or an iat in the future are refused")
    func refusedHeaders() async throws {
        let broker = try await RegistrationTests.make()
        try await broker.withClient { client in
            let exp = broker.clock.now() + 600
            // The same statement without the hostile part registers (the test can tell).
            let plain = try await RegistrationTests.register(client, body: try RegistrationTests.body(try Self.statement(header: [:], exp: exp)))
            #expect(plain.status == .created)
            let hostile: [(String, String)] = [
                ("crit", try Self.statement(header: ["crit": ["urn:example:must-understand"], "urn:example:must-understand": true], exp: exp)),
                ("typ", try Self.statement(header: ["typ": "at+jwt"], exp: exp)),
                ("cty", try Self.statement(header: ["cty": "JWT"], exp: exp)),
                ("iat", try Self.statement(header: [:], exp: exp, claims: ["iat": Int(broker.clock.now().timeIntervalSince1970) + 3600])),
            ]
            for (what, statement) in hostile {
                let answer = try await RegistrationTests.register(client, body: try RegistrationTests.body(statement))
                #expect(answer.status == .badRequest, "\(what)")
                #expect(answer.json["error"] as? String == "invalid_software_statement", "\(what)")
            }
        }
    }
}
