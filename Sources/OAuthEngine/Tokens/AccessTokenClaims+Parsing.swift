import Foundation
import IdentityCore

extension AccessTokenClaims {
    /// Reads the claims of one of our access tokens with the byte-level JSON parser (every
    /// validate does this; `JSONDecoder` was a visible share of the request). Nil when a
    /// required claim is missing or has the wrong type.
    init?(payload: Data) {
        guard case .object(let claims)? = JSONValue(parsing: payload) else { return nil }
        self.init(claims: claims)
    }

    /// The same, from claims already parsed (by ``JWTVerifier``).
    init?(claims: [String: JSONValue]) {
        guard case .string(let iss)? = claims["iss"], case .string(let sub)? = claims["sub"],
              let aud = Self.audience(claims["aud"]), case .int(let exp)? = claims["exp"],
              case .int(let iat)? = claims["iat"], case .string(let jti)? = claims["jti"],
              case .string(let clientId)? = claims["client_id"], case .string(let scope)? = claims["scope"],
              case .string(let sid)? = claims["sid"], case .string(let fid)? = claims["fid"] else { return nil }
        var authTime: Int64?
        switch claims["auth_time"] {
        case .int(let value)?: authTime = value
        case nil, .null?: authTime = nil
        default: return nil
        }
        var nbf: Int64?
        if case .int(let value)? = claims["nbf"] { nbf = value }
        self.init(iss: iss, sub: sub, aud: aud, exp: exp, nbf: nbf, iat: iat, jti: jti, client_id: clientId, scope: scope,
                  sid: sid, fid: fid, auth_time: authTime, email: claims["email"]?.stringValue,
                  roles: claims["roles"].flatMap(Self.strings))
        if case .object? = claims["act"] { act = claims["act"] }
        if case .object? = claims["cnf"] { cnf = claims["cnf"] }
    }

    private static func audience(_ value: JSONValue?) -> Audience? {
        switch value {
        case .string(let one)?: return Audience([one])
        case .array?: return strings(value!).map(Audience.init)
        default: return nil
        }
    }

    private static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }
}
