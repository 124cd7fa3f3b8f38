import ConnectorHTTP
import Foundation
import OAuthEngine

/// Posts a permission request's status change (a JWT the broker signed) to the back end's
/// `notification_uri` (docs/consent.md): a form POST of at most 5 seconds on the shared upstream
/// HTTP client, redirects not followed; 200 and 204 are taken.
struct HTTPPermissionNotification: PermissionNotifying {
    let http = UpstreamHTTP(timeout: .seconds(5), maxResponseBytes: 16 << 10)

    func deliver(statusToken: String, to uri: URL) async throws {
        let answer = try await http.postForm(uri.absoluteString, [("status_token", statusToken)],
                                             headers: [("Cache-Control", "no-store")], what: "back end's permission notification endpoint")
        guard answer.status == 200 || answer.status == 204 else { throw HTTPLogoutTokenDelivery.Refused(status: answer.status) }
    }
}
