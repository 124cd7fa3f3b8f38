import Foundation
import IdentityCore
import StoreContracts

/// Permission requests for back ends (docs/consent.md, "Permission requests"): a confidential
/// client asks for a named user's permission (`POST /oauth/permissions`) and gets a link; the user
/// follows it, signs in and decides on the consent screen; the back end reads the outcome by id or
/// by its own reference (`GET /oauth/permissions/{id}`, `?external_reference=`), and hears of
/// changes at its `notification_uri`. The link is an authorization request by `request_uri`
/// (`urn:ietf:params:oauth:request_uri:perm-…`), reusable until the request is decided or expires;
/// only the named user can decide it.
public struct PermissionRequests: Sendable {
    let context: EngineContext
    let permissionStore: any PermissionStore
    let clients: ClientRegistry
    let rateLimiter: RateLimiter
    let notifications: PermissionNotifications

    public static let uriPrefix = PushedAuthorizations.uriPrefix + "perm-"
    /// How long a request waits for the user by default, and at most (`expires_in` may ask for less or more).
    public static let defaultLifetime = 86_400
    public static let maxLifetime = 7 * 86_400

    /// `POST /oauth/permissions`: `username` or `sub`, `scope`, `redirect_uri`, and optionally
    /// `resource`, `external_reference`, `notification_uri`, `code_challenge` (S256), `expires_in`.
    public func create(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String?) async throws -> PermissionResponse {
        let state = context.state
        let caller = try await clients.authenticate(parameters, basic: basic, in: state)
        guard caller.authenticated, caller.client.instance == nil else {
            throw OAuthError.unauthorizedClient("Only a confidential client (a back end with its secret or key) may ask for permissions.")
        }
        let username = parameters["username"], subject = parameters["sub"]
        guard (username == nil) != (subject == nil) else { throw OAuthError.invalidRequest("Name the user with either username or sub.") }
        let scope = try parameters.require("scope")
        let reference = parameters["external_reference"]
        if let reference, reference.utf8.count > 200 { throw OAuthError.invalidRequest("external_reference is at most 200 bytes.") }
        let notification = try Self.notificationURI(parameters["notification_uri"])
        let lifetime = try Self.lifetime(parameters["expires_in"])
        var verifier: String?
        var challenge = parameters["code_challenge"]
        if challenge == nil {
            verifier = Secrets.randomToken(bytes: 32)
            challenge = PKCE.challenge(for: verifier!)
        } else if parameters["code_challenge_method"] != "S256" {
            throw OAuthError.invalidRequest("code_challenge_method must be S256.")
        }
        let now = context.clock.now()
        let secret = Secrets.randomToken()
        let permission = PermissionRequest(
            id: "perm_" + Secrets.randomToken(bytes: 16), uriHash: Secrets.hash(Self.uriPrefix + secret), clientId: caller.client.clientId,
            username: username, subject: subject, scope: scope, resources: parameters.resources,
            redirectURI: try parameters.require("redirect_uri"), state: Secrets.randomToken(bytes: 16), codeChallenge: challenge!,
            externalReference: reference, notificationURI: notification, createdAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
        // Checked exactly as /oauth/auth will check it: client, redirect URI, scopes, resources, PKCE.
        let asked = try Self.authorizationParameters(permission)
        do throws(AuthorizationFailure) {
            _ = try await AuthorizationRequest.parse(asked, issuer: context.issuer) {
                try await clients.resolve($0, in: state)
            }
        } catch {
            throw error.error.code == .invalidClient ? OAuthError.invalidClient(error.error.errorDescription) : error.error
        }
        try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        guard try await permissionStore.insertPermission(permission) else {
            throw OAuthError.invalidRequest("This external_reference is already used by another permission request of this client.")
        }
        context.audit.record(AuditEvent(.permissionRequested, ["permission": permission.id, "client": permission.clientId,
                                                               "user": username ?? subject, "scope": scope, "external_reference": reference]))
        var response = view(permission, now: now)
        response.authorization_url = RedirectURL.build("\(context.issuer)/oauth/auth", [
            ("client_id", permission.clientId), ("request_uri", Self.uriPrefix + secret)])
        response.code_verifier = verifier
        return response
    }

    /// `GET /oauth/permissions/{id}` or `?external_reference=`: the request's status, to the
    /// client that made it only (any other is told it does not exist).
    public func status(id: String?, externalReference: String?, parameters: OAuthParameters, basic: BasicCredentials?) async throws -> PermissionResponse {
        let caller = try await clients.authenticate(parameters, basic: basic, in: context.state)
        guard caller.authenticated, caller.client.instance == nil else {
            throw OAuthError.unauthorizedClient("Only a confidential client may read permissions.")
        }
        let found: PermissionRequest?
        if let id, id.utf8.count <= 128 {
            found = try await permissionStore.permission(id: id)
        } else if let externalReference, externalReference.utf8.count <= 200 {
            found = try await permissionStore.permission(clientId: caller.client.clientId, externalReference: externalReference)
        } else {
            throw OAuthError.invalidRequest("Name the permission by its id or by external_reference.")
        }
        guard var permission = found, let owner = context.state.directory.resolve(permission.clientId),
              owner.isSameClient(as: caller.client) else {
            throw OAuthError(.invalidRequest, "No such permission request.", status: 404)
        }
        let now = context.clock.now()
        if permission.status(at: now) == .expired && permission.status == .pending {
            permission = await notifications.settle(permission, to: .expired, at: now) ?? permission
        }
        return view(permission, now: now)
    }

    /// The authorization parameters a permission's link stands for, when `uri` is one of ours.
    func parameters(for uri: String) async throws(AuthorizationFailure) -> (OAuthParameters, PermissionRequest) {
        let gone = AuthorizationFailure.cannotRedirect(.invalidRequest(
            "This permission request has been answered or has expired. Ask the app for a new link."))
        do {
            guard uri.utf8.count <= 128, let permission = try await permissionStore.permission(uriHash: Secrets.hash(uri)),
                  permission.status(at: context.clock.now()) == .pending else { throw gone }
            return (try Self.authorizationParameters(permission), permission)
        } catch let failure as AuthorizationFailure {
            throw failure
        } catch {
            throw .cannotRedirect(.wrapping(error, "permission request"))
        }
    }

    /// The authorization request of a permission: the consent screen always shows, for the named user.
    static func authorizationParameters(_ permission: PermissionRequest) throws -> OAuthParameters {
        var pairs = [("client_id", permission.clientId), ("redirect_uri", permission.redirectURI), ("response_type", "code"),
                     ("scope", permission.scope), ("state", permission.state), ("code_challenge", permission.codeChallenge),
                     ("code_challenge_method", "S256"), ("prompt", "consent")]
        if let username = permission.username { pairs.append(("login_hint", username)) }
        pairs += permission.resources.map { ("resource", $0) }
        return try OAuthParameters(pairs: pairs)
    }

    func view(_ permission: PermissionRequest, now: Date) -> PermissionResponse {
        let status = permission.status(at: now)
        return PermissionResponse(
            id: permission.id, status: status.rawValue,
            scope: status == .granted || status == .revoked ? (permission.grantedScopes ?? []).joined(separator: " ") : permission.scope,
            external_reference: permission.externalReference, authorization_url: nil,
            state: status == .pending ? permission.state : nil,
            expires_in: status == .pending ? max(0, Int(permission.expiresAt.timeIntervalSince(now))) : nil, code_verifier: nil,
            created_at: permission.createdAt.epochSeconds, decided_at: permission.decidedAt?.epochSeconds)
    }

    static func notificationURI(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard let url = URL(string: text), let host = url.host?.lowercased(), url.fragment == nil, text.utf8.count <= 2_000,
              url.scheme?.lowercased() == "https" || ["127.0.0.1", "::1", "localhost"].contains(host) else {
            throw OAuthError.invalidRequest("notification_uri must be an https URL without a fragment (http only to this machine).")
        }
        return text
    }

    static func lifetime(_ text: String?) throws -> Int {
        guard let text else { return defaultLifetime }
        guard let seconds = Int(text), (60...maxLifetime).contains(seconds) else {
            throw OAuthError.invalidRequest("expires_in must be between 60 and \(maxLifetime) seconds.")
        }
        return seconds
    }
}
