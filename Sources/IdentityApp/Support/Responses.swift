import Foundation
import Hummingbird
import IdentityCore
import NIOCore
import OAuthEngine

/// Response builders shared by the controllers.
enum Responses {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, noStore: Bool = true) -> Response {
        let data = (try? JSONEncoder.sortedCompact.encode(value)) ?? Data("{}".utf8)
        return json(data: data, status: status, noStore: noStore)
    }

    /// JSON objects built from `JSONValue` skip `JSONEncoder` (the validate path).
    static func json(object: [String: JSONValue], status: HTTPResponse.Status = .ok, noStore: Bool = true) -> Response {
        json(bytes: JSONValue.serialize(object: object), status: status, noStore: noStore)
    }

    static func json(data: Data, status: HTTPResponse.Status = .ok, noStore: Bool = true) -> Response {
        json(bytes: data, status: status, noStore: noStore)
    }

    static func json(bytes: some Sequence<UInt8>, status: HTTPResponse.Status = .ok, noStore: Bool = true) -> Response {
        Response(status: status, headers: noStore ? jsonNoStoreHeaders : jsonHeaders, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The header fields of every JSON answer, built once instead of set one by one through
    /// HTTPTypes' subscript on every validation and introspection.
    private static let jsonHeaders: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    private static let jsonNoStoreHeaders: HTTPFields = [
        .contentType: "application/json; charset=utf-8", .cacheControl: "no-store", .pragma: "no-cache",
    ]

    /// RFC 6749 §5.2 error JSON, with `WWW-Authenticate` where RFC 6749/6750 want it.
    static func error(_ error: OAuthError) -> Response {
        var body: [String: String] = ["error": error.code.rawValue]
        if !error.errorDescription.isEmpty { body["error_description"] = error.errorDescription }
        var response = json(body, status: .init(code: error.status))
        if error.dpopChallenge {
            // RFC 9449 §7.1: the DPoP scheme's challenge, with the algorithms proofs may use.
            var challenge = #"DPoP error="\#(error.code.rawValue)", algs="\#(dpopAlgorithms)""#
            if error.code == .insufficientUserAuthentication {
                challenge += #", acr_values="\#(AuthenticationContext.secondFactor)""#
            }
            response.headers[.wwwAuthenticate] = challenge
        } else if error.code == .invalidClient && error.status == 401 {
            response.headers[.wwwAuthenticate] = #"Basic realm="idconnect""#
        } else if error.code == .invalidToken {
            response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token""#
        } else if error.code == .insufficientUserAuthentication {
            // RFC 9470 §3: the class to ask for when signing in again.
            response.headers[.wwwAuthenticate] =
                #"Bearer error="insufficient_user_authentication", acr_values="\#(AuthenticationContext.secondFactor)""#
        }
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        if let nonce = error.dpopNonce { response.headers[.dpopNonce] = nonce }
        return response
    }

    /// `algs` of a DPoP challenge: what `dpop_signing_alg_values_supported` names.
    private static let dpopAlgorithms = DPoPProofChecker.algorithms.map(\.rawValue).sorted().joined(separator: " ")

    static func redirect(_ location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A hosted page. `styleSources`: the origin of a `customizedLogin: css` stylesheet, whose
    /// images (a logo, a background) and fonts the page may load as well; `scriptNonce`: the
    /// page's own inline script (which may call back to the broker).
    static func html(_ text: String, status: HTTPResponse.Status = .ok, styleSources: [String] = [], imageSources: [String] = [],
                     scriptNonce: String? = nil, formActionSelf: Bool = false) -> Response {
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: contentSecurityPolicy(styleSources: styleSources, imageSources: imageSources, scriptNonce: scriptNonce,
                                                          formActionSelf: formActionSelf),
            .frameOptions: "DENY",
            .referrerPolicy: "no-referrer",
            .contentTypeOptions: "nosniff",
        ]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The hosted pages' Content-Security-Policy: nothing but the page itself, inline styles, the
    /// operator's stylesheet origin (styles, images, fonts), `data:` images (QR codes) and the
    /// named image origins (an app's logo); scripts only with the page's nonce. No `form-action`
    /// except where asked: browsers apply it to the redirect a form post is answered with, and a
    /// sign-in's last post is answered with the redirect to the app (Tests/browser/mfa_test.py).
    static func contentSecurityPolicy(styleSources: [String], imageSources: [String] = [], scriptNonce: String? = nil,
                                      formActionSelf: Bool = false) -> String {
        var seen: Set<String> = []
        let styles = (["'self'", "'unsafe-inline'"] + styleSources).joined(separator: " ")
        let images = (["'self'", "data:"] + styleSources + imageSources).filter { seen.insert($0).inserted }.joined(separator: " ")
        var policy = "default-src 'none'; style-src \(styles); img-src \(images); "
        if !styleSources.isEmpty { policy += "font-src \(styleSources.joined(separator: " ")); " }
        if let scriptNonce { policy += "script-src 'nonce-\(scriptNonce)'; connect-src 'self'; " }
        if formActionSelf { policy += "form-action 'self'; " }
        return policy + "frame-ancestors 'none'; base-uri 'none'"
    }
}
