import Foundation
import Hummingbird
import NIOCore

/// `GET /favicon.ico`: the broker's own icon (a white keyhole on a blue disc, 32×32 PNG), so a
/// browser's automatic request for it is not a 404 on every page. An auth service's
/// `branding.faviconUri` replaces it on its pages (docs/configuration.md, "Branding").
struct FaviconController {
    static let png: ByteBuffer = ByteBuffer(bytes: Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAgUlEQVR42u2XQQ6AIAwEeYxv8uM+SO8eUHZauxiacGUGksK2tdlq24+zt0qgqTIqHEtQMBKJhg9JZMFfS5QKZMO7EqOb3AtLELgiIQs8lSQQcXp0C0uAdgDuBKWXKXwJeAlM9xT/U4A+SJ9ngpBPyDKSlYdSi1huMZjYjGYWw2lmXVS6+qsR0ppqAAAAAElFTkSuQmCC") ?? Data())

    func register(on router: Router<AppRequestContext>) {
        router.get("favicon.ico") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=86400"],
                     body: .init(byteBuffer: Self.png))
        }
    }
}
