import Foundation
import IdentityCore
import JOSE
import OAuthEngine
import Testing

@Suite("The broker's own JWS signing and verification")
struct JWSTests {
    static func ring(_ algorithm: JOSEAlgorithm) throws -> (SigningKey, [String: JSONWebKey]) {
        let key = try SigningKey.generate(algorithm)
        return (key, [key.kid: key.publicKey])
    }

    @Test("RS256 and ES256 tokens verify; the JWK has the right shape", arguments: [JOSEAlgorithm.rs256, .es256])
    func signAndVerify(_ algorithm: JOSEAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let token = try CompactJWS.sign(payload: Data(#"{"sub":"x"}"#.utf8), type: "at+jwt", key: key)
        let parts = try #require(CompactJWS.decode(token))
        #expect(parts.algorithm == algorithm.rawValue)
        #expect(parts.keyId == key.kid)
        #expect(key.publicKey.verify(parts.signature, over: parts.signingInput, algorithm: algorithm))
        let restored = try SigningKey(kid: key.kid, algorithm: algorithm, pem: key.pem)
        #expect(restored.publicKey.verify(parts.signature, over: parts.signingInput, algorithm: algorithm))
        let jwk = key.publicKey.publicFields
        #expect(jwk["kty"] == (algorithm == .rs256 ? "RSA" : "EC"))
        #expect(jwk["d"] == nil)
    }

    @Test("tampering, alg none, a wrong alg for the kid and garbage all fail")
    func hostile() throws {
        let key = try SigningKey.generate(.es256)
        let token = try CompactJWS.sign(payload: Data(#"{"sub":"alice"}"#.utf8), type: "JWT", key: key)
        let pieces = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Data(#"{"sub":"admin"}"#.utf8))
        let tampered = pieces[0] + "." + forgedPayload + "." + pieces[2]
        let none = Base64URL.encode(Data(#"{"alg":"none","kid":"\#(key.kid)"}"#.utf8)) + "." + pieces[1] + "."
        let hs = Base64URL.encode(Data(#"{"alg":"HS256","kid":"\#(key.kid)"}"#.utf8)) + "." + pieces[1] + "." + pieces[2]
        for candidate in [tampered, none, hs, "", "a.b", "a.b.c.d", String(repeating: "x", count: 20_000), "!!.??.**"] {
            guard let parts = CompactJWS.decode(candidate) else { continue }
            let verified = parts.algorithm == key.algorithm.rawValue
                && key.publicKey.verify(parts.signature, over: parts.signingInput, algorithm: key.algorithm)
            #expect(!verified, "\(candidate.prefix(40))")
        }
    }
}
