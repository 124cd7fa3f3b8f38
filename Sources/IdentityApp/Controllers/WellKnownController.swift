import Foundation
import Hummingbird
import NIOCore
import IdentityConfig
import IdentityCore
import OAuthEngine

/// `/.well-known/openid-configuration`, `/.well-known/oauth-authorization-server`, `/.well-known/jwks.json`,
/// and the app-association files of `server.appLinks` (RFC 8252 §7.2).
struct WellKnownController {
    let services: AppServices

    func register(on router: Router<AppRequestContext>) {
        router.get(".well-known/openid-configuration") { request, _ in
            Self.serve(services.engine.discovery.cached(), request, maxAge: Self.discoveryMaxAge)
        }
        router.get(".well-known/oauth-authorization-server") { request, _ in
            Self.serve(services.engine.discovery.cached(), request, maxAge: Self.discoveryMaxAge)
        }
        // Any origin may read these, and preflight them (CORS, docs/protocol.md, "Browser apps (CORS)").
        for path in [".well-known/openid-configuration", ".well-known/oauth-authorization-server", ".well-known/jwks.json"] {
            router.refuseOtherMethods(RouterPath(path), allow: [.get], preflight: .anyOrigin)
        }
        router.get(".well-known/jwks.json") { request, _ in
            Self.serve(services.engine.discovery.jwks(), request, maxAge: Self.jwksMaxAge)
        }
        // Apple and Google fetch these without following redirects; served as configured, exactly.
        for (path, document) in [(".well-known/apple-app-site-association", \AppLinks.apple),
                                 (".well-known/assetlinks.json", \AppLinks.android)] {
            router.refuseOtherMethods(RouterPath(path), allow: [.get])
            router.get(RouterPath(path)) { _, _ in
                guard let bytes = services.engine.state.config.server.appLinks[keyPath: document] else {
                    throw OAuthError(.invalidRequest, "No app links are configured.", status: 404)
                }
                var response = Responses.json(bytes: bytes, noStore: false)
                response.headers[.cacheControl] = "public, max-age=3600"
                return response
            }
        }
    }

    /// Seconds caches may keep discovery: it changes only on a reload.
    static let discoveryMaxAge = 300
    /// Seconds caches may keep the JWKS: short, so a rotated key is fetched soon.
    static let jwksMaxAge = 60

    /// The same bytes for everyone, with `ETag`; 304 without a body when `If-None-Match` names it.
    /// (Most of these requests are answered before the router by `PrecomputedDocumentHandler`,
    /// with the same headers.)
    static func serve(_ document: CachedDocument, _ request: Request, maxAge: Int) -> Response {
        let notModified = document.matches(ifNoneMatch: request.headers[.ifNoneMatch])
        let headers = headers(for: document, maxAge: maxAge, notModified: notModified)
        if notModified { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document.bytes)))
    }

    /// The headers of a document's answer (without `Content-Length`): its type unless the answer
    /// is a 304, its entity tag, how long it may be cached, and that any origin may read it (the
    /// same for everyone and without credentials, so `*` and no `Vary`).
    static func headers(for document: CachedDocument, maxAge: Int, notModified: Bool) -> HTTPFields {
        var headers: HTTPFields = notModified ? [:] : [.contentType: "application/json; charset=utf-8"]
        headers[.eTag] = document.etag
        headers[.cacheControl] = "public, max-age=\(maxAge)"
        headers[.accessControlAllowOrigin] = "*"
        return headers
    }
}
