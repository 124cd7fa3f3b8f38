import ConnectorHTTP
import Foundation
import OAuthEngine

/// Posts logout tokens to relying parties' back-channel logout endpoints (OpenID Connect
/// Back-Channel Logout 1.0, section 2.5) on the shared upstream HTTP client: a form POST of at most
/// 5 seconds, redirects not followed, the answer's body read up to 16 KiB and ignored. 200 and 204
/// are taken; anything else (section 2.8: 400 when the relying party refused it) is a failure the
/// notifier retries and audits.
struct HTTPLogoutTokenDelivery: LogoutTokenDelivering {
    let http = UpstreamHTTP(timeout: .seconds(5), maxResponseBytes: 16 << 10)

    func deliver(logoutToken: String, to uri: URL) async throws {
        let answer = try await http.postForm(uri.absoluteString, [("logout_token", logoutToken)],
                                             headers: [("Cache-Control", "no-store")], what: "relying party's back-channel logout endpoint")
        guard answer.status == 200 || answer.status == 204 else { throw Refused(status: answer.status) }
    }

    struct Refused: Error, CustomStringConvertible {
        let status: Int
        var description: String { "answered HTTP \(status)" }
    }
}
