import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A small browser for an upstream provider's pages: follows redirects and fills the login form
/// (username, password, hidden fields such as CSRF tokens) until a URL starts with `stopPrefix`
/// (the broker's `/oauth/callback`), keeping cookies like a real browser would.
final class UpstreamBrowser: @unchecked Sendable {
    private let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(20))))
    private var cookies: [String: String] = [:]
    /// Every URL visited, for diagnostics.
    private(set) var visited: [String] = []

    deinit { try? client.syncShutdown() }

    struct Page {
        var url: String
        var status: Int
        var location: String?
        var body: String
    }

    func request(_ url: String, method: HTTPMethod = .GET, form: [(String, String)]? = nil,
                 headers: [(String, String)] = []) async throws -> Page {
        visited.append("\(method.rawValue) \(url)")
        var request = HTTPClientRequest(url: url)
        request.method = method
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: formEncode(form)))
        }
        let response = try await client.execute(request, timeout: .seconds(20))
        for header in response.headers[canonicalForm: "set-cookie"] {
            let pair = header.split(separator: ";").first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { cookies[parts[0].trimmingCharacters(in: .whitespaces)] = String(parts[1]) }
        }
        let body = try await response.body.collect(upTo: 4 << 20)
        let location = response.headers.first(name: "location").map { URL(string: $0, relativeTo: URL(string: url))?.absoluteString ?? $0 }
        return Page(url: url, status: Int(response.status.code), location: location, body: String(buffer: body))
    }

    /// Drives from `start` until a redirect to `stopPrefix`; returns that URL.
    func signIn(start: String, stopPrefix: String, username: String, password: String, maxSteps: Int = 12) async throws -> String {
        var page = try await request(start)
        for _ in 0..<maxSteps {
            if let location = page.location, (300..<400).contains(page.status) {
                if location.hasPrefix(stopPrefix) { return location }
                page = try await request(location)
                continue
            }
            guard let form = HTMLForm.find(in: page.body, baseURL: page.url) else {
                throw BrowserStuck(description: "no form at \(page.url) (HTTP \(page.status)): \(page.body.prefix(600))")
            }
            page = try await request(form.action, method: form.method == "get" ? .GET : .POST,
                                     form: form.filled(username: username, password: password))
        }
        throw BrowserStuck(description: "too many steps: \(visited)")
    }

    struct BrowserStuck: Error, CustomStringConvertible { let description: String }
}

/// The form of a page (the one with a password field when there is one) with its inputs.
struct HTMLForm {
    var action: String
    var method: String
    var inputs: [(name: String, type: String, value: String)]

    static func find(in html: String, baseURL: String) -> HTMLForm? {
        let forms = matches(#"<form\b[^>]*>[\s\S]*?</form>"#, in: html)
        guard let chosen = forms.first(where: { $0.range(of: #"type\s*=\s*"password""#, options: .regularExpression) != nil }) ?? forms.first,
              let tag = matches(#"<form\b[^>]*>"#, in: chosen).first else { return nil }
        let attributes = Self.attributes(tag)
        let rawAction = attributes["action"] ?? ""
        let action = rawAction.isEmpty || rawAction == "#" ? baseURL
            : URL(string: rawAction, relativeTo: URL(string: baseURL))?.absoluteString ?? baseURL
        let inputs = matches(#"<input\b[^>]*>"#, in: chosen).compactMap { tag -> (String, String, String)? in
            let fields = Self.attributes(tag)
            guard let name = fields["name"] else { return nil }
            return (name, (fields["type"] ?? "text").lowercased(), fields["value"] ?? "")
        }
        return HTMLForm(action: action, method: (attributes["method"] ?? "get").lowercased(), inputs: inputs)
    }

    /// Hidden and other fields as they are; the password field and the user field filled in.
    func filled(username: String, password: String) -> [(String, String)] {
        inputs.compactMap { input in
            switch input.type {
            case "password": return (input.name, password)
            case "checkbox", "radio", "submit", "button": return nil
            default:
                if ["username", "user", "login", "email"].contains(input.name.lowercased()) { return (input.name, username) }
                return (input.name, input.value)
            }
        }
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    static func attributes(_ tag: String) -> [String: String] {
        guard let regex = try? NSRegularExpression(pattern: #"([a-zA-Z_:-]+)\s*=\s*"([^"]*)""#) else { return [:] }
        var result: [String: String] = [:]
        for match in regex.matches(in: tag, range: NSRange(tag.startIndex..., in: tag)) {
            guard let name = Range(match.range(at: 1), in: tag), let value = Range(match.range(at: 2), in: tag) else { continue }
            result[tag[name].lowercased()] = decodeEntities(String(tag[value]))
        }
        return result
    }

    static func decodeEntities(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&#x2F;", "/"),
                                    ("&#61;", "="), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}
