import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import OAuthEngine
import Testing

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    /// POSTs form fields, encoded exactly as given (order kept).
    func postForm(_ uri: String, _ fields: [(String, String)], headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if headers[.contentType] == nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: formEncode(fields)))
    }

    func postRaw(_ uri: String, body: String, contentType: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = contentType
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }
}

func formEncode(_ fields: [(String, String)]) -> String {
    fields.map { "\($0.0)=\(RedirectURL.encode($0.1))" }.joined(separator: "&")
}

func basicAuth(_ user: String, _ password: String) -> HTTPFields {
    [.authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
}

extension TestResponse {
    var text: String { String(buffer: body) }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    var location: String? { headers[.location] }

    /// The `name=value` pairs of every Set-Cookie header.
    var cookies: [String: String] {
        var result: [String: String] = [:]
        for field in headers[values: .setCookie] {
            let pair = field.split(separator: ";").first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { result[String(parts[0]).trimmingCharacters(in: .whitespaces)] = String(parts[1]) }
        }
        return result
    }
}

/// Query parameters of a URL as a dictionary (last wins), plus their order.
func queryItems(_ url: String) -> [String: String] {
    var result: [String: String] = [:]
    for item in URLComponents(string: url)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
    return result
}

func queryNames(_ url: String) -> [String] {
    (URLComponents(string: url)?.queryItems ?? []).map(\.name)
}

/// The path (and query) of an absolute URL, for requests to the test server whose port differs from the issuer's.
func pathOf(_ url: String) -> String {
    guard let components = URLComponents(string: url) else { return url }
    return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
}

/// What a browser would read off the hosted login page.
struct LoginFormFields {
    var action: String
    var csrfToken: String

    init?(html: String) {
        func capture(_ pattern: String) -> String? {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                  let match = regex.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)),
                  let range = Range(match.range(at: 1), in: html) else { return nil }
            return String(html[range]).replacingOccurrences(of: "&amp;", with: "&")
                .replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&quot;", with: "\"")
        }
        guard let action = capture(#"<form method="post" action="([^"]+)""#),
              let csrf = capture(#"name="csrf_token" value="([^"]+)""#) else { return nil }
        self.action = action
        self.csrfToken = csrf
    }
}

/// The `code` of a redirect answer's `Location`; fails the test when there is none.
func redirectCode(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let location = try #require(response.location, sourceLocation: sourceLocation)
    return try #require(queryItems(location)["code"], "\(location)", sourceLocation: sourceLocation)
}
