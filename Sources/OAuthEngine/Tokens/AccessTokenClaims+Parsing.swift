import Foundation
import IdentityCore

extension AccessTokenClaims {
    /// Reads the claims of one of our access tokens with the byte-level JSON parser (every
    /// validate does this; `JSONDecoder` was a visible share of the request). Nil when a
    /// required claim is missing or has the wrong type.
    init?(payload: Data) {
        guard case .object(let claims)? = JSONValue(parsing: payload),
              case .string(let iss)? = claims["iss"], case .string(let sub)? = claims["sub"],
              case .string(let aud)? = claims["aud"], case .int(let exp)? = claims["exp"],
              case .int(let iat)? = claims["iat"], case .string(let jti)? = claims["jti"],
              case .string(let clientId)? = claims["client_id"], case .string(let scope)? = claims["scope"],
              case .string(let sid)? = claims["sid"], case .string(let fid)? = claims["fid"] else { return nil }
        var authTime: Int64?
        switch claims["auth_time"] {
        case .int(let value)?: authTime = value
        case nil, .null?: authTime = nil
        default: return nil
        }
        self.init(iss: iss, sub: sub, aud: aud, exp: exp, iat: iat, jti: jti, client_id: clientId, scope: scope,
                  sid: sid, fid: fid, auth_time: authTime)
    }
}
