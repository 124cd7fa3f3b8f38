import Hummingbird

/// Completes the gateway's `ANY /datalink/{name}/{path...}`
/// (docs/protocol.md, "Data-link gateway"): the router matches methods one by one, so a request
/// under `/datalink/` with a method no route names (WebDAV's PROPFIND, REPORT, PURGE, …) would be a
/// 404. Added to the router after every route, this middleware wraps only the router's not-found
/// answer: such requests are forwarded like any other, everything else stays a 404.
struct DataLinkAnyMethodMiddleware: RouterMiddleware {
    let controller: DataLinkController

    @concurrent func handle(_ request: Request, context: AppRequestContext,
                            next: @concurrent (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/datalink/") else { return try await next(request, context) }
        context.coreContext.endpointPath.value = "/datalink/{name}/**"
        return try await controller.forward(request, context)
    }
}
