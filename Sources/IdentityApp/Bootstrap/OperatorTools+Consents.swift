import Foundation
import OAuthEngine
import StoreContracts

extension OperatorTools {
    /// A user's consents at auth service `authService` (`idconnect consents list`): what they
    /// allowed each app on the consent screen, newest decision first.
    public func consents(authService: String, user: String) async throws -> [ConsentRecord] {
        var found: [ConsentRecord] = []
        for subject in try await subjects(authService: authService, user: user) {
            found += try await store.consents(subject: subject, limit: 1000)
        }
        return found.sorted { ($1.updatedAt, $0.clientId) < ($0.updatedAt, $1.clientId) }
    }

    /// Takes back a user's consents (`idconnect consents revoke`): every one, or only `client`'s
    /// (its `appKey.authServiceId` or instance id). The app asks again at the next sign-in; tokens
    /// it holds keep working until they end (`idconnect sessions revoke` ends those). Returns what went.
    public func revokeConsents(authService: String, user: String, client: String?) async throws -> [ConsentRecord] {
        var revoked: [ConsentRecord] = []
        for record in try await consents(authService: authService, user: user) where client == nil || record.clientId == client {
            guard try await store.revokeConsent(subject: record.subject, clientId: record.clientId) else { continue }
            audit.record(AuditEvent(.consentRevoked, ["client": record.clientId, "subject": record.subject, "by": "operator"]))
            try await revokePermissions(of: record)
            revoked.append(record)
        }
        return revoked
    }

    /// Marks the back ends' granted permission requests behind a consent revoked (no notification
    /// is posted from here: the status endpoint answers `revoked`).
    private func revokePermissions(of record: ConsentRecord) async throws {
        let appKey = String(record.clientId.split(separator: ".").first ?? "")
        for permission in try await store.grantedPermissions(subject: record.subject, clientIds: [record.clientId, appKey]) {
            var revoked = permission
            revoked.status = .revoked
            revoked.decidedAt = clock.now()
            guard try await store.settlePermission(revoked, from: .granted) else { continue }
            audit.record(AuditEvent(.permissionRevoked, ["permission": permission.id, "client": permission.clientId,
                                                         "subject": record.subject, "by": "operator"]))
        }
    }

    /// The subjects `user` may have at `authService`: derived from each environment's or
    /// organization's namespace for the id as given, those of the user's live sessions (any
    /// case), and `user` itself when it is a subject.
    private func subjects(authService: String, user: String) async throws -> [String] {
        let namespaces = config.environments.filter { $0.authServices.contains { $0.id == authService } }.map { "env:\($0.appKey)/\(authService)" }
            + config.organizations.filter { $0.authServices.contains { $0.id == authService } }.map { "org:\($0.id)/\(authService)" }
        guard !namespaces.isEmpty else { throw OperatorToolError("No auth service with id '\(authService)' is configured.") }
        var subjects = namespaces.map { SubjectIdentifier.make(namespace: $0, userId: user) } + [user]
        subjects += try await store.liveSessions(authServiceId: authService, user: user, at: clock.now(), limit: 100).map(\.subject)
        var seen: Set<String> = []
        return subjects.filter { seen.insert($0).inserted }
    }
}
