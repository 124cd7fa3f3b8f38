import AsyncHTTPClient
import NIOHTTP1
import Synchronization

/// Requests already parsed, by method and URL text: `HTTPClient.Request.init` parses and checks
/// its URL (through Foundation's `URL`) every time, and a connector
/// calls the same few URLs over and over. A copy of the parsed request gets the call's headers
/// and body. At most ``capacity`` are kept; past that, requests are parsed as before.
enum RequestPrototypes {
    static let capacity = 256

    private struct Key: Hashable {
        var method: String
        var url: String
    }

    private static let parsed = Mutex<[Key: HTTPClient.Request]>([:])

    /// The request for `url` with `method`, `headers` and `body`; throws what
    /// `HTTPClient.Request.init` throws for a URL it refuses (nothing refused is kept).
    static func request(_ url: String, method: HTTPMethod, headers: HTTPHeaders, body: HTTPClient.Body?) throws -> HTTPClient.Request {
        let key = Key(method: method.rawValue, url: url)
        if var request = parsed.withLock({ $0[key] }) {
            request.headers = headers
            request.body = body
            return request
        }
        let request = try HTTPClient.Request(url: url, method: method, headers: headers, body: body)
        parsed.withLock { table in
            if table.count < capacity { table[key] = request }
        }
        return request
    }
}
