import Foundation
import IdentityCore

/// What an AuthLink handler decides; AuthLinkKit turns it into the exact JSON and status the
/// broker expects (docs/connectors/authlink.md, "Writing one with AuthLinkKit").
public enum AuthLinkResult: Sendable, Equatable {
    /// 200 `{"authenticated": true, "token", "refresh_token"?, "expires_in"?, …attributes}`.
    /// Attributes become user attributes at the broker (subject to `allowedAttributes`);
    /// an `id` attribute overrides the user id (default: the username).
    case authenticated(token: String, refreshToken: String? = nil, expiresIn: Int? = nil, attributes: [String: JSONValue] = [:])
    /// 401 `{"authError": {"error": "access_denied", "error_description"}}`: wrong credentials.
    case denied(String? = nil)
    /// 401 `temporarily_unavailable`: the system behind the AuthLink is down (→ 503 at the broker).
    case unavailable(String? = nil)
    /// 401 `server_error`: the AuthLink failed (→ 502 at the broker).
    case failed(String? = nil)
    /// 200 `{"authenticated": false, "challenge": {"message", "state", "input"}}`: ask the person
    /// a question first (a code sent by SMS). The broker shows `message` and posts the answer back
    /// with `state` (docs/mfa.md, "AuthLink challenges"); `input` is `otp` (a code) or `text`.
    case challenge(message: String, state: String, input: String = "otp")

    /// The HTTP status and JSON body of this result.
    public var wire: (status: Int, body: Data) {
        func authError(_ code: String, _ description: String?) -> Data {
            var error: [String: JSONValue] = ["error": .string(code)]
            if let description { error["error_description"] = .string(description) }
            return (try? JSONEncoder.sortedCompact.encode(["authError": JSONValue.object(error)])) ?? Data()
        }
        switch self {
        case .authenticated(let token, let refreshToken, let expiresIn, let attributes):
            var body = attributes.filter { !["authenticated", "token", "refresh_token", "expires_in"].contains($0.key) }
            body["authenticated"] = .bool(true)
            body["token"] = .string(token)
            if let refreshToken { body["refresh_token"] = .string(refreshToken) }
            if let expiresIn { body["expires_in"] = .int(Int64(expiresIn)) }
            return (200, (try? JSONEncoder.sortedCompact.encode(body)) ?? Data())
        case .denied(let description): return (401, authError("access_denied", description))
        case .unavailable(let description): return (401, authError("temporarily_unavailable", description))
        case .failed(let description): return (401, authError("server_error", description))
        case .challenge(let message, let state, let input):
            let body: [String: JSONValue] = ["authenticated": .bool(false), "challenge": .object([
                "message": .string(message), "state": .string(state), "input": .string(input)])]
            return (200, (try? JSONEncoder.sortedCompact.encode(body)) ?? Data())
        }
    }
}

/// A login call from the broker.
public struct AuthLinkLogin: Sendable {
    public var username: String
    public var password: String
    /// A code the app sent with the password (API mode): check it against the challenge this
    /// AuthLink would have sent, and accept without asking again when it matches.
    public var otp: String?
}

/// The person's answer to a challenge, posted by the broker to the login path.
public struct AuthLinkChallengeAnswer: Sendable {
    public var username: String
    /// The `state` of the challenge being answered, as the AuthLink sent it.
    public var state: String
    public var response: String
}
