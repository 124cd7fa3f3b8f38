import Crypto
import Foundation
import IdentityCore

/// Claims of a broker access token (RFC 9068 profile, `typ: at+jwt`). Resource servers check
/// them offline with any JWT library (docs/api-resources.md): `exp`, `nbf`, `iat`, `iss`, `aud`,
/// `sub` are always there.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    /// The APIs the token is for, or the `client_id` when it is for none (Kinvey MIC).
    public var aud: Audience
    public var exp: Int64
    /// Same whole second as `iat`.
    public var nbf: Int64?
    public var iat: Int64
    public var jti: String
    public var client_id: String
    public var scope: String
    /// The sign-in session.
    public var sid: String
    /// The token family (refresh-token family) the token belongs to.
    public var fid: String
    public var auth_time: Int64?
    /// With scope `email`.
    public var email: String?
    /// With scope `roles`: the user's groups.
    public var roles: [String]?
    /// Authentication methods (RFC 8176): `pwd`, `otp`, `hwk`, `mfa` (docs/mfa.md).
    public var amr: [String]?
    /// Token exchange with an actor (RFC 8693 §4.1): who acts for `sub` — `{sub, client_id}`,
    /// nesting the actor token's own `act` (docs/token-exchange.md).
    public var act: JSONValue?
    /// DPoP (RFC 9449 §6.1): `{"jkt": <thumbprint>}` of the key the token is bound to.
    public var cnf: JSONValue?
}

/// A JWT `aud`: a string for one audience, an array for several (RFC 7519 §4.1.3).
public struct Audience: Codable, Sendable, Equatable {
    public var values: [String]

    public init(_ values: [String]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if values.count == 1 { try container.encode(values[0]) } else { try container.encode(values) }
    }

    /// As JSON for introspection answers.
    public var json: JSONValue { values.count == 1 ? .string(values[0]) : .array(values.map { .string($0) }) }
}

/// Claims of an OpenID Connect ID token (OIDC Core §2).
public struct IDTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var exp: Int64
    public var iat: Int64
    public var auth_time: Int64
    public var nonce: String?
    public var at_hash: String?
    public var sid: String?
    public var email: String?
    public var email_verified: Bool?
    public var name: String?
    public var preferred_username: String?
    public var groups: [String]?
    /// `urn:idconnect:acr:pwd`, or `urn:idconnect:acr:mfa` after a second factor.
    public var acr: String?
    /// Authentication methods (RFC 8176): `pwd`, `otp`, `hwk`, `mfa` (docs/mfa.md).
    public var amr: [String]?
    /// Native SSO: the hash of the device secret issued with this ID token (docs/native-sso.md).
    public var ds_hash: String?

    public init(iss: String, sub: String, aud: String, exp: Int64, iat: Int64, auth_time: Int64, nonce: String? = nil,
                at_hash: String? = nil, sid: String? = nil) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.auth_time = auth_time
        self.nonce = nonce
        self.at_hash = at_hash
        self.sid = sid
    }
}

/// Stable, opaque subjects: one per (auth service namespace, upstream user id), unique across the issuer.
public enum SubjectIdentifier {
    public static func make(namespace: String, userId: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data("\(namespace)\u{0}\(userId)".utf8))).prefix(24))
    }
}

/// OIDC `at_hash`: the left half of SHA-256 over the access token, base64url.
public enum AccessTokenHash {
    public static func compute(_ accessToken: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(accessToken.utf8))).prefix(16))
    }
}

/// The token endpoint's success answer (RFC 6749 §5.1).
public struct TokenResponse: Codable, Sendable, Equatable {
    public var access_token: String
    public var token_type: String
    public var expires_in: Int
    public var refresh_token: String?
    public var id_token: String?
    public var scope: String
    /// One-time app-to-web SSO value for a registered instance that asked for `native`
    /// (docs/protocol.md, "App-to-web SSO").
    public var css: String?
    /// Token exchange (RFC 8693 §2.2.1): the type of `access_token`.
    public var issued_token_type: String?
    /// Native SSO: the device secret another app of the environment exchanges with the ID token.
    public var device_secret: String?
}
