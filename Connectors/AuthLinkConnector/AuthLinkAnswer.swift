import Foundation
import IdentityCore

/// How an AuthLink's answer to a login or refresh call reads, per
/// docs/connectors/authlink.md, "The contract". Shared by the connector and by
/// `idconnect authlink check`, so both judge answers the same way.
public enum AuthLinkAnswer: Sendable, Equatable {
    /// 200 `{"authenticated": true, "token": …, "refresh_token"?, "expires_in"?, …extra}`.
    case authenticated(token: String, refreshToken: String?, expiresIn: Double?, extra: [String: JSONValue])
    /// 401 without authError, or with `authError.error` = `access_denied`; or 200 with `authenticated: false`.
    case denied(description: String?)
    /// 200 `{"authenticated": false, "challenge": {"message", "state", "input"?}}`: a question
    /// for the person (a code sent by SMS), answered in a further call (docs/mfa.md).
    case challenge(message: String, state: String, input: String)
    /// 401 with `authError.error` = `temporarily_unavailable`, or 5xx.
    case unavailable(description: String?)
    /// 401 with `authError.error` = `server_error` or any other value, or `authError` as a string.
    case serverError(description: String?)
    /// Not the contract: wrong status, not JSON, fields of the wrong type.
    case violation(String)

    static let reserved: Set<String> = ["authenticated", "token", "refresh_token", "expires_in"]
    /// The longest `expires_in` taken as given: one year.
    public static let maxExpiresIn: Double = 365 * 24 * 3600

    /// Reads an answer.
    public static func read(status: Int, body: Data) -> AuthLinkAnswer {
        switch status {
        case 200: return readSuccess(body)
        case 401: return readRefusal(body)
        case 500...599: return .unavailable(description: nil)
        default: return .violation("HTTP \(status) is not an AuthLink answer (expected 200 or 401)")
        }
    }

    private static func readSuccess(_ body: Data) -> AuthLinkAnswer {
        guard case .object(let object)? = JSONValue(parsing: body) else {
            return .violation("a 200 answer must be a JSON object")
        }
        guard case .bool(let authenticated)? = object["authenticated"] else {
            return .violation("'authenticated' must be true or false")
        }
        guard authenticated else { return readChallenge(object["challenge"]) }
        guard case .string(let token)? = object["token"], !token.isEmpty else {
            return .violation("'token' must be a non-empty string")
        }
        var refreshToken: String?
        switch object["refresh_token"] {
        case nil, .null?: break
        case .string(let value)? where !value.isEmpty: refreshToken = value
        default: return .violation("'refresh_token' must be a non-empty string")
        }
        var expiresIn: Double?
        switch object["expires_in"] {
        case nil, .null?: break
        case .int(let value)? where value > 0: expiresIn = Double(value)
        case .double(let value)? where value > 0 && value.isFinite: expiresIn = value
        case .string(let text)? where Double(text).map({ $0 > 0 && $0.isFinite }) == true: expiresIn = Double(text)
        default: return .violation("'expires_in' must be a positive number of seconds")
        }
        // "1e300" is a positive number too; past a year it reads as a year (the token is then
        // refreshed yearly), so no later date arithmetic or conversion to Int can overflow.
        expiresIn = expiresIn.map { min($0, maxExpiresIn) }
        let extra = object.filter { !reserved.contains($0.key) }
        return .authenticated(token: token, refreshToken: refreshToken, expiresIn: expiresIn, extra: extra)
    }

    /// `challenge` of a 200 `authenticated: false` answer; none means a refusal.
    private static func readChallenge(_ value: JSONValue?) -> AuthLinkAnswer {
        guard let value, value != .null else { return .denied(description: nil) }
        guard case .object(let challenge) = value else { return .violation("'challenge' must be an object") }
        guard case .string(let message)? = challenge["message"], !message.isEmpty, message.utf8.count <= 1024 else {
            return .violation("'challenge.message' must be a non-empty string of at most 1024 bytes")
        }
        guard case .string(let state)? = challenge["state"], !state.isEmpty, state.utf8.count <= 4096 else {
            return .violation("'challenge.state' must be a non-empty string of at most 4096 bytes")
        }
        var input = "otp"
        switch challenge["input"] {
        case nil, .null?: break
        case .string(let value)? where value == "otp" || value == "text": input = value
        default: return .violation("'challenge.input' must be \"otp\" or \"text\"")
        }
        return .challenge(message: message, state: state, input: input)
    }

    private static func readRefusal(_ body: Data) -> AuthLinkAnswer {
        let trimmed = body.filter { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        guard !trimmed.isEmpty else { return .denied(description: nil) }
        guard case .object(let object)? = JSONValue(parsing: body) else {
            return .violation("a 401 body must be empty or a JSON object")
        }
        switch object["authError"] {
        case nil, .null?:
            return .denied(description: nil)
        case .string(let text)?:
            return .serverError(description: text)
        case .object(let error)?:
            let description = error["error_description"]?.stringValue
            switch error["error"]?.stringValue {
            case "access_denied"?, nil: return .denied(description: description)
            case "temporarily_unavailable"?: return .unavailable(description: description)
            default: return .serverError(description: description)
            }
        default:
            return .violation("'authError' must be an object or a string")
        }
    }
}
