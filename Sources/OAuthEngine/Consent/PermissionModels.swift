import Foundation
import StoreContracts

/// The answer of `POST /oauth/permissions` and `GET /oauth/permissions/{id}` (docs/consent.md,
/// "Permission requests"); snake_case as the other OAuth JSON answers.
public struct PermissionResponse: Codable, Sendable, Equatable {
    public var id: String
    /// `pending`, `granted`, `denied`, `expired` or `revoked`.
    public var status: String
    /// Granted: the scopes the user allowed; otherwise the scopes asked for.
    public var scope: String
    public var external_reference: String?
    /// While pending: the link the user follows (an authorization request by `request_uri`, so
    /// nothing in it can be changed in the browser) and the `state` the answer will carry.
    public var authorization_url: String?
    public var state: String?
    /// Seconds the link has left while pending.
    public var expires_in: Int?
    /// The PKCE verifier, on creation only, when the back end sent no `code_challenge`: the code
    /// the user's decision sends to the redirect URI is redeemed with it.
    public var code_verifier: String?
    public var created_at: Int64
    public var decided_at: Int64?
}

/// Delivers a permission's status change to its `notification_uri`.
public protocol PermissionNotifying: Sendable {
    /// POSTs `statusToken` (a JWT signed by the broker) as the form field `status_token` to `uri`;
    /// throws when the back end did not take it (anything but HTTP 200 or 204).
    func deliver(statusToken: String, to uri: URL) async throws
}

extension PermissionRequest {
    /// Its status as of `now`: a pending request past its end is expired.
    func status(at now: Date) -> Status { status == .pending && now >= expiresAt ? .expired : status }
}
