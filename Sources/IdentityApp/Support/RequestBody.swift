import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// Reads OAuth parameters from query strings, form bodies and JSON bodies.
enum RequestParameters {
    /// Query parameters, refusing repeats.
    static func query(_ request: Request) throws -> OAuthParameters {
        try OAuthParameters(pairs: decodeForm(request.uri.query ?? ""))
    }

    /// A form-encoded or JSON body (by Content-Type; form when none is given).
    static func body(_ request: Request, context: AppRequestContext) async throws -> OAuthParameters {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let data = Data(buffer: buffer)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/json") {
            return try OAuthParameters(pairs: try decodeJSON(data))
        }
        if !contentType.isEmpty && !contentType.hasPrefix("application/x-www-form-urlencoded") {
            throw OAuthError.invalidRequest("Send the parameters as application/x-www-form-urlencoded.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw OAuthError.invalidRequest("The request body is not UTF-8.")
        }
        return try OAuthParameters(pairs: decodeForm(text))
    }

    /// `application/x-www-form-urlencoded` (also query strings). Bad percent-encoding is an error.
    static func decodeForm(_ text: String) throws -> [(String, String)] {
        guard !text.isEmpty else { return [] }
        return try text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(parts[0])
            let value = parts.count > 1 ? try decodeComponent(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decodeComponent(_ part: Substring) throws -> String {
        let plus = part.replacingOccurrences(of: "+", with: " ")
        guard let decoded = plus.removingPercentEncoding else {
            throw OAuthError.invalidRequest("The request has malformed percent-encoding.")
        }
        return decoded
    }

    /// A flat JSON object; numbers and booleans become strings, nested values are refused.
    static func decodeJSON(_ data: Data) throws -> [(String, String)] {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw OAuthError.invalidRequest("The request body is not a JSON object.")
        }
        return try object.map { name, value in
            switch value {
            case .string(let text): return (name, text)
            case .int(let number): return (name, String(number))
            case .double(let number): return (name, String(number))
            case .bool(let flag): return (name, flag ? "true" : "false")
            case .null: return (name, "")
            case .array, .object:
                throw OAuthError.invalidRequest("The parameter '\(name.prefix(64))' must be a string.")
            }
        }
    }

    /// Basic client credentials, if the request carries them.
    static func basic(_ request: Request) throws -> BasicCredentials? {
        try BasicCredentials(authorizationHeader: request.headers[.authorization])
    }
}
