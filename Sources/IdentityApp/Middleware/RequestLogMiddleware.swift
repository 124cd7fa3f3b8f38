import Foundation
import Hummingbird
import IdentityCore
import Logging

/// One structured log line per request: request id, method, path (never the query, which can
/// carry codes and tokens), status and duration. The id is also returned as `X-Request-Id`.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let metrics: MetricsRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let requestId = context.id
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestId] = requestId
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let milliseconds = seconds * 1000
        metrics.request(route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                        status: Int(response.status.code), seconds: seconds)
        context.logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "path": .string(Self.loggablePath(request.uri.path)),
            "status": .stringConvertible(response.status.code),
            "ms": .string(String(format: "%.2f", milliseconds)),
            "client": .string(context.remoteAddress ?? "-"),
        ])
        return response
    }

    /// Paths with secrets in them (temp login ids, registration ids) are logged with the secret cut.
    static func loggablePath(_ path: String) -> String {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        // .../oauth/authenticate/{secret} and .../oauth/register/{secret}
        if let index = components.firstIndex(where: { $0 == "authenticate" || $0 == "register" }),
           index > 0, components[index - 1] == "oauth", index + 1 < components.count {
            components = Array(components[...index]) + ["…"]
        }
        return String(components.joined(separator: "/").prefix(200))
    }
}
