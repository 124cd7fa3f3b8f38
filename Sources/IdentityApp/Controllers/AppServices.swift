import Hummingbird
import OAuthEngine

/// What every controller needs.
struct AppServices: Sendable {
    let engine: BrokerEngine
    let pages: Pages
    /// Cookies get `Secure` when the issuer is https.
    var secureCookies: Bool { engine.issuer.lowercased().hasPrefix("https://") }
    var issuer: String { engine.issuer }
}

/// Registers `routes` bare and under `/v1`, `/v2`, `/v3` (SPEC §3: the Kinvey SDKs use all of them).
func registerVersioned(_ router: Router<AppRequestContext>, _ routes: (RouterGroup<AppRequestContext>) -> Void) {
    routes(router.group(""))
    for version in ["v1", "v2", "v3"] {
        routes(router.group(RouterPath(version)))
    }
}
