import EngineTesting
import Foundation
import IdentityCore
import JOSE
@testable import OAuthEngine
import Testing

/// The proof checks of RFC 9449 §4.3 on their own: each wrong header, claim or signature refused.
@Suite("DPoPProofChecker")
struct DPoPProofCheckerTests {
    let key = TestDPoPKey()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let url = "https://idc.example.com/oauth/token"

    func refusal(_ proof: String, _ request: DPoPRequest? = nil) -> String? {
        do {
            _ = try DPoPProofChecker.check(proof, for: request ?? DPoPRequest(method: "POST", url: url), now: now)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("RFC 7638 thumbprint of RFC 9449's example key")
    func thumbprintVector() {
        let jwk: [String: JSONValue] = ["kty": .string("EC"), "crv": .string("P-256"),
                                        "x": .string("l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"),
                                        "y": .string("9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA")]
        #expect(JWKThumbprint.sha256(of: jwk) == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(JWKThumbprint.sha256(of: ["kty": .string("oct"), "k": .string("c2VjcmV0")]) == nil)
        #expect(JWKThumbprint.isWellFormed("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"))
        #expect(!JWKThumbprint.isWellFormed("0ZcOCORZNYy+DWpqq30jZyJGHTN0d2HglBV3uiguA4I"))
    }

    @Test("a good proof names its key's thumbprint; the URL compares without case in scheme and host, default port and query")
    func goodProof() throws {
        let proof = key.proof("POST", "HTTPS://IDC.example.com:443/oauth/token?x=1", issuedAt: now, jti: "j1")
        let checked = try DPoPProofChecker.check(proof, for: DPoPRequest(method: "POST", url: url), now: now)
        #expect(checked.thumbprint == key.thumbprint)
        #expect(checked.jti == "j1")
        #expect(checked.nonce == nil)
        let withToken = key.proof("GET", "https://idc.example.com/oauth/userinfo", accessToken: "tok", issuedAt: now)
        #expect(refusal(withToken, DPoPRequest(method: "GET", url: "https://idc.example.com/oauth/userinfo", accessToken: "tok")) == nil)
    }

    @Test("headers: typ, alg none or HMAC, no jwk, a private key in the jwk, another key's signature, crit")
    func badHeaders() {
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["typ": .string("JWT")])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["typ": nil])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["alg": .string("none")])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["alg": .string("HS256")])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["alg": .string("RS256")])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["jwk": nil])) == "the proof has no jwk header")
        var leaked = key.jwk
        leaked["d"] = .string("AAAA")
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["jwk": .object(leaked)])) == "the proof's jwk holds a private key")
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["jwk": .object(TestDPoPKey().jwk)]))?.hasPrefix("the proof does not verify") == true)
        #expect(refusal(key.proof("POST", url, issuedAt: now, header: ["crit": .array([.string("x")])])) != nil)
        let unsigned = key.proof("POST", url, issuedAt: now).split(separator: ".").prefix(2).joined(separator: ".") + "."
        #expect(refusal(unsigned) != nil)
    }

    @Test("claims: htm, htu, stale or future iat, ath, jti and nonce types, missing claims")
    func badClaims() {
        #expect(refusal(key.proof("GET", url, issuedAt: now))?.hasPrefix("htm") == true)
        #expect(refusal(key.proof("post", url, issuedAt: now))?.hasPrefix("htm") == true)
        #expect(refusal(key.proof("POST", "https://idc.example.com/oauth/par", issuedAt: now))?.hasPrefix("htu") == true)
        #expect(refusal(key.proof("POST", "https://evil.example.com/oauth/token", issuedAt: now))?.hasPrefix("htu") == true)
        #expect(refusal(key.proof("POST", "http://idc.example.com/oauth/token", issuedAt: now))?.hasPrefix("htu") == true)
        #expect(refusal(key.proof("POST", url, issuedAt: now.addingTimeInterval(-301)))?.contains("older") == true)
        #expect(refusal(key.proof("POST", url, issuedAt: now.addingTimeInterval(-299))) == nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now.addingTimeInterval(120))) != nil)
        let resource = DPoPRequest(method: "GET", url: url, accessToken: "the-token")
        #expect(refusal(key.proof("GET", url, issuedAt: now), resource)?.hasPrefix("ath") == true)
        #expect(refusal(key.proof("GET", url, accessToken: "another", issuedAt: now), resource)?.hasPrefix("ath") == true)
        #expect(refusal(key.proof("POST", url, issuedAt: now, jti: String(repeating: "j", count: 257))) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, claims: ["jti": .int(5)])) != nil)
        #expect(refusal(key.proof("POST", url, issuedAt: now, claims: ["nonce": .int(5)])) == "nonce must be a string")
        for claim in ["jti", "htm", "htu", "iat"] {
            #expect(refusal(key.proof("POST", url, issuedAt: now, claims: [claim: nil])) != nil, "without \(claim)")
        }
        #expect(refusal("not.a.jwt") != nil)
        #expect(refusal(String(repeating: "a", count: 9000)) != nil)
    }
}
