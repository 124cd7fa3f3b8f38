import Foundation
import IdentityCore
import StoreContracts

/// Every change of a permission request's status (docs/consent.md, "Permission requests"): stored
/// once (the first decision wins), audited as `permission.<status>`, and posted to the request's
/// `notification_uri` as a signed JWT — three attempts (at once, after 5 s and after 30 s); the
/// status endpoint stays the source of truth.
struct PermissionNotifications: Sendable {
    let context: EngineContext
    let permissionStore: any PermissionStore
    let delivery: (any PermissionNotifying)?

    static let retryDelays: [Double] = [0, 5, 30]
    static let tokenLifetime: TimeInterval = 300

    /// Moves `permission` from its stored status to `status`; returns it as stored, or nil when
    /// another decision came first.
    @discardableResult
    func settle(_ permission: PermissionRequest, to status: PermissionRequest.Status, at now: Date, subject: String? = nil,
                scopes: [String]? = nil) async -> PermissionRequest? {
        var next = permission
        next.status = status
        next.decidedAt = now
        if let subject { next.subject = subject }
        if let scopes { next.grantedScopes = scopes }
        do {
            guard try await permissionStore.settlePermission(next, from: permission.status) else { return nil }
        } catch {
            context.logger.warning("could not store a permission's status", metadata: ["permission": "\(permission.id)", "error": "\(error)"])
            return nil
        }
        context.audit.record(AuditEvent(Self.event(status), [
            "permission": next.id, "client": next.clientId, "subject": next.subject, "scope": next.grantedScopes?.joined(separator: " "),
            "external_reference": next.externalReference]))
        notify(next, at: now)
        return next
    }

    /// Marks the granted permissions of `subject` at the client of consent key `clientKey` revoked.
    func revokeGranted(subject: String, clientKey: String, at now: Date) async throws {
        let candidates = [clientKey, String(clientKey.split(separator: ".").first ?? "")]
        for permission in try await permissionStore.grantedPermissions(subject: subject, clientIds: candidates) {
            guard let client = context.state.directory.resolve(permission.clientId), ConsentGate.clientKey(client) == clientKey else { continue }
            await settle(permission, to: .revoked, at: now)
        }
    }

    private static func event(_ status: PermissionRequest.Status) -> AuditEvent.Name {
        switch status {
        case .pending: .permissionRequested
        case .granted: .permissionGranted
        case .denied: .permissionDenied
        case .expired: .permissionExpired
        case .revoked: .permissionRevoked
        }
    }

    private func notify(_ permission: PermissionRequest, at now: Date) {
        guard let delivery, let text = permission.notificationURI, let uri = URL(string: text) else { return }
        let token: String
        do {
            var claims: [String: JSONValue] = [
                "iss": .string(context.issuer), "aud": .string(permission.clientId), "iat": .int(now.epochSeconds),
                "exp": .int(now.addingTimeInterval(Self.tokenLifetime).epochSeconds), "jti": .string(Secrets.randomToken(bytes: 16)),
                "permission_id": .string(permission.id), "status": .string(permission.status.rawValue),
            ]
            if let scopes = permission.grantedScopes { claims["scope"] = .string(scopes.joined(separator: " ")) }
            if let reference = permission.externalReference { claims["external_reference"] = .string(reference) }
            token = try context.state.keys.sign(Data(JSONValue.serialize(object: claims)), type: "permission-status+jwt")
        } catch {
            context.logger.warning("could not sign a permission notification", metadata: ["error": "\(error)"])
            return
        }
        let logger = context.logger, id = permission.id
        Task.detached {
            for (attempt, delay) in Self.retryDelays.enumerated() {
                if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
                do {
                    try await delivery.deliver(statusToken: token, to: uri)
                    return
                } catch {
                    logger.warning("a permission notification was not taken",
                                   metadata: ["permission": "\(id)", "attempt": "\(attempt + 1)", "error": "\(error)"])
                }
            }
        }
    }
}
