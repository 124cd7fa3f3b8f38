import EventLoopAffinity
import Hummingbird

/// The broker's own layers around every routed request, as one Hummingbird middleware: the request
/// id and log line (`RequestLog`), the refusals (`RequestRefusals`), the JSON answer for whatever
/// a route throws (`ErrorAnswers`), the reader's language for pages (`PageLanguageRequest`), and under `IDCONNECT_EXECUTOR=loops` one turn in the event
/// loop's queue under load (`EventLoopTurns`).
///
/// One middleware, not one per layer: a Hummingbird middleware's `handle` switches executors on
/// entry and after `next`, and under load, where the broker runs its jobs isolated to the event
/// loop (`adaptive`), each switch is a trip through the loop's queue; four middlewares made four
/// times the trips (docs/benchmarks-history.md counts them).
struct BrokerMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let metrics: MetricsRegistry
    /// Declared bodies over this many bytes are refused (1 MiB) ...
    var bodyLimit = 1 << 20
    /// ... except under this prefix: the data-link gateway streams larger ones under its own limit.
    var bodyLimitExemptPrefix = "/datalink/"
    /// Set only under `IDCONNECT_EXECUTOR=loops`.
    var turns: EventLoopTurns?
    /// The "Page not found" page for browsers (`ErrorAnswers`).
    var pages: Pages?

    @concurrent func handle(_ request: Request, context: Context,
                            next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        if let turns {
            response = try await turns.request { await answer(request, context: context, next: next) }
        } else {
            response = await answer(request, context: context, next: next)
        }
        response.headers.set(.requestId, to: context.id)
        RequestLog.record(on: context.logger, metrics: metrics, route: context.endpointPath ?? "unmatched",
                          method: request.method.rawValue, path: request.uri.path, status: response.status.code,
                          client: context.remoteAddress, since: start)
        return response
    }

    /// A refusal, the route's answer, or the answer for the error it threw.
    private func answer(_ request: Request, context: Context,
                        next: @concurrent (Request, Context) async throws -> Response) async -> Response {
        if let refusal = RequestRefusals.refusedMethod(request)
            ?? RequestRefusals.oversizedBody(request, limit: bodyLimit, exemptPrefix: bodyLimitExemptPrefix) {
            return refusal
        }
        // The reader's language for any page this request answers with (docs/languages.md).
        return await PageLanguageRequest.$preferences.withValue(PageLanguageRequest.Preferences(request)) {
            do {
                return try await next(request, context)
            } catch {
                return ErrorAnswers.response(for: error, request: request, pages: pages, logger: context.logger)
            }
        }
    }
}
