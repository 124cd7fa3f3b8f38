import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// Reads OAuth parameters from a request's query string, form body or JSON body (decoded by
/// `ParameterDecoding`).
package enum RequestParameters {
    /// Query parameters, refusing repeats.
    static func query(_ request: Request) throws -> OAuthParameters {
        try OAuthParameters(pairs: ParameterDecoding.form(request.uri.query ?? ""))
    }

    /// A form-encoded or JSON body (by Content-Type; form when none is given).
    static func body(_ request: Request, context: AppRequestContext,
                     maxValueLength: Int = OAuthParameters.maxValueLength) async throws -> OAuthParameters {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let contentType = request.headers.value(.contentType) ?? ""
        if contentType.hasASCIICaseInsensitivePrefix("application/json") {
            return try OAuthParameters(pairs: try ParameterDecoding.json(Data(buffer: buffer)), maxValueLength: maxValueLength)
        }
        if !contentType.isEmpty && !contentType.hasASCIICaseInsensitivePrefix("application/x-www-form-urlencoded") {
            throw OAuthError.invalidRequest("Send the parameters as application/x-www-form-urlencoded.")
        }
        // Straight from the buffer's bytes: through `Data` and Foundation's `String(data:encoding:)`
        // the body was copied twice per introspection or token call.
        guard let text = buffer.withUnsafeReadableBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw OAuthError.invalidRequest("The request body is not UTF-8.")
        }
        return try OAuthParameters(pairs: ParameterDecoding.form(text), maxValueLength: maxValueLength)
    }

    /// Basic client credentials, if the request carries them.
    static func basic(_ request: Request) throws -> BasicCredentials? {
        try BasicCredentials(authorizationHeader: request.headers.value(.authorization))
    }
}
