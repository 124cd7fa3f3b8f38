import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import OAuthEngine

/// JWS, JWK and software-statement entries.
enum JOSEFuzzing {
    /// One key of each kind the broker verifies, made once per process.
    static let keys: [SigningKey] = {
        do { return [try SigningKey.generate(.rs256), try SigningKey.generate(.es256)] } catch { fatalError("key generation: \(error)") }
    }()
    static let keySet = JSONWebKeySet(keys: keys.map(\.publicKey))
    /// A policy that lets through whatever is signed by one of `keys` and has no bad time claim.
    static let policy = JWTPolicy(use: "fuzzed token", algorithms: [.rs256, .es256], types: ["JWT"], typeMayBeAbsent: true,
                                  requiredClaims: [], expiry: .ignored)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func jws(_ data: Data) {
        guard let token = String(data: data, encoding: .utf8),
              let verified = try? JWTVerifier.verify(token, keys: keySet, policy: policy, now: now) else { return }
        // Only a token one of our keys signed may verify: never `none`, never `crit`.
        let algorithm = verified.header["alg"]?.stringValue
        require(algorithm == "RS256" || algorithm == "ES256", "a token with alg \(algorithm ?? "nil") verified")
        require(verified.header["crit"] == nil, "a token with a crit header verified")
    }

    /// A fixed token each parsed key is asked to verify (none of them made it, so none may say yes).
    static let foreignToken: CompactJWS.Parts = {
        let key = (try? SigningKey.generate(.es256))!
        let token = try! CompactJWS.sign(payload: Data(#"{"sub":"x"}"#.utf8), type: "JWT", key: key)
        return CompactJWS.decode(token)!
    }()

    static func jwks(_ data: Data) {
        guard let set = JSONWebKeySet(parsing: data) else { return }
        for key in set.keys {
            for algorithm in [JOSEAlgorithm.rs256, .es256, .ps256, .es384] where key.fits(algorithm) {
                require(!key.verify(foreignToken.signature, over: foreignToken.signingInput, algorithm: algorithm),
                        "a parsed key verified a signature made by another key")
            }
        }
    }

    static let trust: SoftwareStatementTrust = {
        let fields = keys.map { key in key.publicKey.publicFields.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") }
        return SoftwareStatementTrust(jwks: #"{"keys":["# + fields.map { "{\($0)}" }.joined(separator: ",") + "]}")
    }()

    /// First byte even: the rest is the statement as sent. Odd: the rest is its payload, signed
    /// with a trusted key, so the claim checks are reached.
    static func softwareStatement(_ data: Data) {
        guard let mode = data.first else { return }
        let rest = Data(data.dropFirst())
        let jwt: String
        if mode % 2 == 0 {
            guard let text = String(data: rest, encoding: .utf8) else { return }
            jwt = text
        } else {
            guard let signed = try? CompactJWS.sign(payload: rest, type: "JWT", key: keys[Int(mode / 2) % keys.count]) else { return }
            jwt = signed
        }
        guard let statement = try? SoftwareStatement.verify(jwt, trust: trust, softwareId: "fuzz-app", now: now) else { return }
        require(!statement.redirectURIs.isEmpty, "a statement without redirect_uris was accepted")
        require(!statement.issuer.isEmpty, "a statement without iss was accepted")
        require(mode % 2 == 1, "an unsigned or foreign-signed statement was accepted")
    }
}
