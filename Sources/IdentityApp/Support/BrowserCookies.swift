import Foundation
import Hummingbird
import IdentityCore
import OAuthEngine

/// The broker's own browser cookies (docs/protocol.md, "SSO"; docs/security.md, rules 4 and 10):
/// the SSO cookie and the browser binding cookie. Both are HttpOnly and SameSite=Lax; with an https
/// issuer they are `Secure` and carry the `__Host-` prefix, so that neither a sibling subdomain nor
/// a plain-http answer can plant one in a victim's browser.
struct BrowserCookies: Sendable {
    let secure: Bool

    static let ssoBase = "idc_sso"
    static let bindingBase = "idc_csrf"

    var sso: String { name(Self.ssoBase) }
    /// Binds pending sign-ins to the browser that started them; the login form's token derives from it.
    var binding: String { name(Self.bindingBase) }

    func name(_ base: String) -> String { secure ? "__Host-" + base : base }

    func ssoToken(_ request: Request) -> String? { request.cookies[sso]?.value }

    /// The browser's binding value when it brought a well-formed one, else nil.
    func existingBinding(_ request: Request) -> String? {
        guard let value = request.cookies[binding]?.value, value.utf8.count == 43, Base64URL.decode(value) != nil else { return nil }
        return value
    }

    /// The browser's binding value, or a new one (set it on the response with `setBinding`).
    func binding(for request: Request) -> String { existingBinding(request) ?? Secrets.randomToken() }

    func setBinding(_ value: String, on response: inout Response) {
        response.setCookie(Cookie(name: binding, value: value, path: "/", secure: secure, httpOnly: true, sameSite: .lax))
    }

    func setSSO(_ cookie: SSOCookie?, on response: inout Response) {
        guard let cookie else { return }
        response.setCookie(Cookie(name: sso, value: cookie.value, maxAge: cookie.maxAge, path: "/", secure: secure,
                                  httpOnly: true, sameSite: .lax))
    }

    /// A broker-own sign-in's sealed flow cookie (`idc_account`, `idc_device`): set to `value`
    /// for `maxAge` seconds, or cleared when `clear` (and no new value).
    func setFlow(_ base: String, _ value: String?, maxAge: Int, clear: Bool, on response: inout Response) {
        if let value {
            response.setCookie(Cookie(name: name(base), value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax))
        } else if clear {
            response.setCookie(Cookie(name: name(base), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax))
        }
    }

    func clearSSO(on response: inout Response) {
        response.setCookie(Cookie(name: sso, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax))
    }
}
