import EventLoopAffinity
import Hummingbird

/// Under `IDCONNECT_EXECUTOR=loops` and load, each request waits one turn in its event loop's
/// queue before it is handled (`EventLoopTurns`). `buildRouter` adds it only under that executor.
struct EventLoopTurnsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let turns = EventLoopTurns()

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        try await turns.request { try await next(request, context) }
    }
}
