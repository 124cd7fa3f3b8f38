import Foundation
import IdentityCore
@testable import OAuthEngine
import Testing

/// The token endpoint's JSON is written by hand (`TokenClaims+Serialization.swift`); it must be
/// byte for byte what `JSONEncoder.sortedCompact` writes, for every optional present or absent
/// and for strings that need escaping.
@Suite("Tokens: claims and responses serialized like JSONEncoder")
struct TokenSerializationTests {
    /// Strings with quotes, backslashes, control characters, slashes and non-ASCII text.
    static let awkward = ["plain", "a\"quote\\back", "line\nfeed\ttab\u{1}", "https://api.example.org/x", "Zoë 東京 🚀", ""]

    static func encoded(_ value: some Encodable) throws -> Data { try JSONEncoder.sortedCompact.encode(value) }

    @Test("access token claims, every optional present or absent")
    func accessTokenClaims() throws {
        for text in Self.awkward {
            for full in [true, false] {
                for audiences in [["one"], ["one", text], []] {
                    let claims = AccessTokenClaims(
                        iss: "https://id.example.org/" + text, sub: text, aud: Audience(audiences), exp: 1_800_000_600,
                        nbf: full ? 1_800_000_000 : nil, iat: 1_800_000_000, jti: "j" + text, client_id: "kid", scope: "openid " + text,
                        sid: "s", fid: "f", auth_time: full ? -5 : nil, email: full ? text + "@example.org" : nil,
                        roles: full ? [text, "b"] : nil, amr: full ? ["pwd", "otp"] : nil)
                    #expect(claims.serialized == (try Self.encoded(claims)))
                    #expect(try JSONDecoder().decode(AccessTokenClaims.self, from: claims.serialized) == claims)
                }
            }
        }
    }

    @Test("ID token claims, every optional present or absent")
    func idTokenClaims() throws {
        for text in Self.awkward {
            var claims = IDTokenClaims(iss: "https://id.example.org", sub: text, aud: "kid", exp: 9_999_999_999, iat: 0, auth_time: 1)
            #expect(claims.serialized == (try Self.encoded(claims)))
            claims.nonce = text
            claims.at_hash = "h"
            claims.sid = "s" + text
            claims.email = text
            claims.email_verified = false
            claims.name = text
            claims.preferred_username = text
            claims.groups = [text, ""]
            claims.acr = AuthenticationContext.secondFactor
            claims.amr = ["pwd"]
            #expect(claims.serialized == (try Self.encoded(claims)))
        }
    }

    @Test("token responses, with and without refresh token, ID token and css")
    func responses() throws {
        for text in Self.awkward {
            var response = TokenResponse(access_token: "a" + text, token_type: "Bearer", expires_in: 3600,
                                         refresh_token: nil, id_token: nil, scope: text)
            #expect(Data(response.serialized) == (try Self.encoded(response)))
            response.refresh_token = "r"
            response.id_token = "i.d.t"
            response.css = text
            #expect(Data(response.serialized) == (try Self.encoded(response)))
            #expect(try JSONDecoder().decode(TokenResponse.self, from: Data(response.serialized)) == response)
        }
    }
}
