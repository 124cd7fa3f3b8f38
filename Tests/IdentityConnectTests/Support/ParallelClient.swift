import AsyncHTTPClient
import Foundation
import NIOCore

/// Requests on connections of their own, for tests that need them truly at the same time (the
/// HummingbirdTesting client sends one request after another on one connection).
enum ParallelClient {
    /// POSTs form fields to the broker on 127.0.0.1:`port`; returns the status and the JSON body.
    static func postForm(port: Int, _ path: String, _ fields: [(String, String)],
                         basic: (String, String)? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Connection", value: "close")
        if let (user, password) = basic {
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        }
        request.body = .bytes(ByteBuffer(string: formEncode(fields)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }
}
