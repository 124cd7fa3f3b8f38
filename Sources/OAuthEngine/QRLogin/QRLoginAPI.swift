import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts
import UserAgent

/// The app's half of QR-code login (docs/qr-login.md), wire-compatible with Blitz Identity
/// Provider's mobile API: with an access token of a user signed in to the app, read what is
/// asking to sign in (`info`), then `confirm` or `refuse`.
///
/// Checks, in order: the token (401), the code (404), the token's auth service (403) and scope
/// (401) against the sign-in's, whether it was answered already (409), expiry (410).
public struct QRLoginAPI: Sendable {
    let context: EngineContext
    let qrStore: any QRLoginStore
    let verifier: TokenVerifier
    let clients: ClientRegistry
    let locator: (any AddressLocator)?

    /// The browser asking to sign in, for the app's confirmation screen.
    public func info(code: String, bearer: String?, acceptLanguage: String?) async throws(QRAPIError) -> [String: JSONValue] {
        let (login, _, client) = try await authorized(code: code, bearer: bearer)
        let agent = UserAgent(parsing: login.userAgent)
        var info: [String: JSONValue] = [
            "ip": login.clientAddress.map { .string($0) } ?? .null,
            "rp_id": .string(client.clientId),
            "rp_name": .string(client.service.name ?? client.environment.name ?? client.appKey),
            "device_type": .string(agent.deviceType.rawValue),
        ]
        let optional: [String: String?] = [
            "browser": agent.browser?.description, "os": agent.os?.description,
            "device_name": agent.deviceName, "device": agent.device,
        ]
        for (key, value) in optional { if let value { info[key] = .string(value) } }
        if let locator, let address = login.clientAddress,
           let place = locator.locate(address, languages: preferredLanguages(acceptLanguage)) {
            let fields: [String: JSONValue?] = [
                "ip_country": place.country.map { .string($0) }, "ip_state": place.state.map { .string($0) },
                "ip_city": place.city.map { .string($0) }, "ip_lat": place.latitude.map { .double($0) },
                "ip_lng": place.longitude.map { .double($0) }, "ip_radius": place.radius.map { .int(Int64($0)) },
            ]
            for (key, value) in fields { if let value { info[key] = value } }
        }
        return info
    }

    /// Signs the showing browser in as the token's user, in the token's session (ending the
    /// app's session ends the browser's).
    public func confirm(code: String, bearer: String?, clientAddress: String?) async throws(QRAPIError) {
        let (login, token, _) = try await authorized(code: code, bearer: bearer)
        try await settle(login, .confirmed(sessionId: token.session.id, subject: token.session.subject))
    }

    /// Refuses the sign-in: `{"cause_id": "mistake"|"unauthorized", "desc"?}`. `unauthorized`
    /// (someone else is trying to sign in as this user) is a security event.
    public func refuse(code: String, bearer: String?, body: [String: JSONValue]?, clientAddress: String?) async throws(QRAPIError) {
        let (login, token, client) = try await authorized(code: code, bearer: bearer)
        guard case .string(let cause)? = body?["cause_id"], ["mistake", "unauthorized"].contains(cause) else {
            throw .invalidRequest("cause_id must be \"mistake\" or \"unauthorized\".")
        }
        var detail: String?
        if case .string(let text)? = body?["desc"] { detail = String(text.prefix(256)) }
        try await settle(login, .refused(cause: cause))
        context.audit.record(AuditEvent(.qrRefused, [
            "cause": cause, "detail": detail, "client": client.clientId, "auth_service": client.service.id,
            "user": token.session.userId, "session": token.session.id, "app_address": clientAddress,
            "browser_address": login.clientAddress]))
    }

    private func settle(_ login: QRLogin, _ settlement: QRLoginSettlement) async throws(QRAPIError) {
        let settled: Bool
        do {
            settled = try await qrStore.settleQRLogin(codeHash: login.codeHash, settlement, at: context.clock.now())
        } catch {
            throw .unavailable
        }
        guard settled else {
            // Lost a race with another answer, or expired meanwhile.
            throw context.clock.now() >= login.expiresAt ? .expired : .completed
        }
    }

    /// The sign-in behind `code`, when `bearer` may answer it.
    private func authorized(code: String, bearer: String?) async throws(QRAPIError) -> (QRLogin, VerifiedAccessToken, ResolvedClient) {
        let token = try await verify(bearer)
        let login: QRLogin
        do {
            guard QRLoginBrowser.isWellFormed(code), let found = try await qrStore.qrLogin(codeHash: QRLoginBrowser.hash(code)) else {
                throw QRAPIError.notFound
            }
            login = found
        } catch let error as QRAPIError {
            throw error
        } catch {
            throw .unavailable
        }
        guard let client = try? await clients.resolve(login.clientId), let settings = client.service.qrLogin else { throw .notFound }
        guard token.client.authService.namespace == client.authService.namespace else { throw .wrongAuthService }
        guard Scopes.contains(token.scope, settings.scope) else { throw .insufficientScope }
        guard login.state == .pending else { throw .completed }
        guard context.clock.now() < login.expiresAt else { throw .expired }
        return (login, token, client)
    }

    private func verify(_ bearer: String?) async throws(QRAPIError) -> VerifiedAccessToken {
        guard let bearer, !bearer.isEmpty, bearer.utf8.count <= 8192 else { throw .invalidToken }
        do {
            return try await verifier.verifyAccessToken(bearer, presented: .bearer)
        } catch {
            // Storage or an identity source that cannot answer now is not a bad token.
            if OAuthError.wrapping(error, "access token").code == .temporarilyUnavailable { throw .unavailable }
            if let identity = try? await verifier.identity(of: bearer), identity.expiresAt <= context.clock.now() {
                throw .expiredToken
            }
            throw .invalidToken
        }
    }
}
