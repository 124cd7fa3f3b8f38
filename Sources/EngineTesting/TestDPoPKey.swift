import Crypto
import Foundation
import IdentityCore
import JOSE
import OAuthEngine

/// A client's DPoP key pair (P-256) and the proofs it signs (RFC 9449 §4), for tests of the
/// broker's checks: every claim and header can be set to a wrong value on purpose.
public struct TestDPoPKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init() { privateKey = P256.Signing.PrivateKey() }

    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    public var jwk: [String: JSONValue] {
        let raw = privateKey.publicKey.rawRepresentation
        return ["kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(raw.prefix(32))),
                "y": .string(Base64URL.encode(raw.suffix(32)))]
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638): what `dpop_jkt` and `cnf.jkt` name.
    public var thumbprint: String { JWKThumbprint.sha256(of: jwk)! }

    /// A proof for `method` `url` at `issuedAt`, with `ath` for `accessToken` and the server's
    /// `nonce` when given. `header` and `claims` replace or add members (nil values remove them).
    public func proof(_ method: String, _ url: String, accessToken: String? = nil, nonce: String? = nil, issuedAt: Date,
                      jti: String = UUID().uuidString, header: [String: JSONValue?] = [:], claims: [String: JSONValue?] = [:]) -> String {
        var head: [String: JSONValue] = ["typ": .string("dpop+jwt"), "alg": .string("ES256"), "jwk": .object(jwk)]
        for (name, value) in header { head[name] = value }
        var body: [String: JSONValue] = ["jti": .string(jti), "htm": .string(method), "htu": .string(url),
                                         "iat": .int(Int64(issuedAt.timeIntervalSince1970))]
        if let accessToken { body["ath"] = .string(DPoPProofChecker.accessTokenHash(accessToken)) }
        if let nonce { body["nonce"] = .string(nonce) }
        for (name, value) in claims { body[name] = value }
        let input = Base64URL.encode(Data(JSONValue.serialize(object: head))) + "." + Base64URL.encode(Data(JSONValue.serialize(object: body)))
        let signature = try! privateKey.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Base64URL.encode(signature)
    }
}
