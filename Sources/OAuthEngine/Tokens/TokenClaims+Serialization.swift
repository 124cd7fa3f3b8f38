import Foundation
import IdentityCore

/// The token endpoint's JSON written without `JSONEncoder`: compact, keys sorted, absent
/// optionals left out, byte for byte what `JSONEncoder.sortedCompact` writes
/// (`TokenSerializationTests`). Every refresh encodes four documents — the access token's claims,
/// the ID token's, and the response twice (the answer and its sealed grace copy) — and
/// `JSONEncoder` was a visible share of it (docs/benchmarks-history.md).
extension AccessTokenClaims {
    /// The JWT payload.
    public var serialized: Data {
        var object: [String: JSONValue] = [
            "iss": .string(iss), "sub": .string(sub), "aud": aud.json, "exp": .int(exp), "iat": .int(iat),
            "jti": .string(jti), "client_id": .string(client_id), "scope": .string(scope), "sid": .string(sid),
            "fid": .string(fid),
        ]
        object["nbf"] = nbf.map { .int($0) }
        object["auth_time"] = auth_time.map { .int($0) }
        object["email"] = email.map { .string($0) }
        object["roles"] = roles.map(JSONValue.strings)
        object["amr"] = amr.map(JSONValue.strings)
        object["act"] = act
        object["cnf"] = cnf
        return Data(JSONValue.serialize(object: object))
    }
}

extension IDTokenClaims {
    /// The JWT payload.
    public var serialized: Data {
        var object: [String: JSONValue] = [
            "iss": .string(iss), "sub": .string(sub), "aud": .string(aud), "exp": .int(exp), "iat": .int(iat),
            "auth_time": .int(auth_time),
        ]
        object["nonce"] = nonce.map { .string($0) }
        object["at_hash"] = at_hash.map { .string($0) }
        object["sid"] = sid.map { .string($0) }
        object["email"] = email.map { .string($0) }
        object["email_verified"] = email_verified.map { .bool($0) }
        object["name"] = name.map { .string($0) }
        object["preferred_username"] = preferred_username.map { .string($0) }
        object["groups"] = groups.map(JSONValue.strings)
        object["acr"] = acr.map { .string($0) }
        object["amr"] = amr.map(JSONValue.strings)
        object["ds_hash"] = ds_hash.map { .string($0) }
        return Data(JSONValue.serialize(object: object))
    }
}

extension TokenResponse {
    /// The answer's body (RFC 6749 §5.1).
    public var serialized: [UInt8] {
        var object: [String: JSONValue] = [
            "access_token": .string(access_token), "token_type": .string(token_type), "expires_in": .int(Int64(expires_in)),
            "scope": .string(scope),
        ]
        object["refresh_token"] = refresh_token.map { .string($0) }
        object["id_token"] = id_token.map { .string($0) }
        object["css"] = css.map { .string($0) }
        object["issued_token_type"] = issued_token_type.map { .string($0) }
        object["device_secret"] = device_secret.map { .string($0) }
        return JSONValue.serialize(object: object)
    }
}

extension JSONValue {
    /// An array of strings.
    static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
}
