import ConnectorHTTP
import Foundation
import NIOCore
import OAuthEngine

/// Fetches `private_key_jwt` clients' published JWK sets for the engine
/// (docs/client-authentication.md): a GET of at most 5 seconds and 64 KiB, on the shared
/// upstream HTTP client; anything but a 200 is a failure the engine reports as `invalid_client`.
struct HTTPClientKeyFetcher: ClientKeyFetching {
    let http = UpstreamHTTP(timeout: .seconds(5), maxResponseBytes: 64 << 10)

    func jwks(at url: URL) async throws -> Data {
        let answer = try await http.get(url.absoluteString, accept: "application/jwk-set+json, application/json",
                                        what: "client JWK set")
        guard answer.status == 200 else { throw FetchFailure(status: answer.status) }
        return answer.body
    }

    struct FetchFailure: Error, CustomStringConvertible {
        let status: Int
        var description: String { "answered HTTP \(status)" }
    }
}
