import Foundation
import IdentityConfig
import IdentityCore
import PageLanguages
import StoreContracts
import UserAgent

/// What the account page lists (docs/account.md), read fresh for every page and every action:
/// the user's live sessions at the auth service (by subject, so another auth service's or user's
/// never appear), the live token families in them, and the app instances bound to the user.
struct AccountListing: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let familyStore: any TokenFamilyStore
    let instanceStore: any RegisteredClientStore
    let mfaStore: any MFAStore
    let consentStore: any ConsentStore
    /// Whether passkeys can be offered (the issuer can be a WebAuthn relying party).
    let offersPasskeys: Bool

    /// The most sessions the page lists (newest first).
    static let limit = 200

    /// The user's live sessions at the viewer's auth service, newest first.
    func sessions(_ viewer: AccountViewer) async throws -> [LoginSession] {
        let subject = viewer.session.subject
        return try await sessionStore.liveSessions(authServiceId: viewer.client.service.id, user: subject, at: context.clock.now(),
                                     limit: Self.limit).filter { $0.subject == subject }
    }

    /// A browser sign-in: one that kept its User-Agent, or one this browser holds.
    func isBrowser(_ session: LoginSession, _ viewer: AccountViewer) -> Bool {
        session.userAgent != nil || viewer.browserSessions.contains(session.id)
    }

    /// The live token families in `sessions`: a refresh token still valid, or access tokens that
    /// may still be (issued within the longest token lifetime).
    func liveFamilies(in sessions: [LoginSession]) async throws -> [TokenFamily] {
        let now = context.clock.now()
        let window = EngineContext.keyRetention(for: context.state.config)
        return try await familyStore.unrevokedFamilies(sessionIds: sessions.map(\.id))
            .filter { family in
                if family.refreshHash != nil, let expiry = family.refreshExpiresAt, now < expiry { return true }
                return now.timeIntervalSince(family.rotatedAt ?? family.createdAt) < window
            }
    }

    /// Builds the page for `viewer`.
    func model(_ viewer: AccountViewer, notice: PageText? = nil, error: PageText? = nil, codes: [String] = []) async throws -> AccountPageModel {
        let client = viewer.client
        let sessions = try await sessions(viewer)
        let families = try await liveFamilies(in: sessions)
        let instances = try await instanceStore.registeredClients(boundTo: viewer.session.subject)
        let attributes = viewer.session.attributes
        let user = AccountPageModel.User(
            id: viewer.session.userId, name: attributes["name"]?.stringValue, email: attributes["email"]?.stringValue,
            groups: Self.strings(attributes["groups"]))
        var model = AccountPageModel(
            heading: (client.service.name ?? client.environment.name).map(PageText.init(verbatim:)) ?? "Your account", clientId: client.clientId,
            csrfToken: viewer.csrfToken, notice: notice, error: error, recoveryCodes: codes, user: user,
            browsers: sessions.filter { isBrowser($0, viewer) }.map { browserRow($0, viewer) },
            apps: appRows(families), devices: instances.map { deviceRow($0, families) },
            factors: try await factorsSection(viewer), look: client.look)
        model.sharedSignIns = sharedSignInRows(sessions, families)
        model.consents = try await consentRows(viewer)
        return model
    }

    /// The apps the user allowed, each with what it may do in words.
    func consentRows(_ viewer: AccountViewer) async throws -> [AccountPageModel.Consent] {
        try await consentStore.consents(subject: viewer.session.subject, limit: Self.limit).map { record in
            let resolved = context.state.directory.resolve(record.clientId)
            let words = resolved?.service.consent?.scopeDescriptions ?? [:]
            return AccountPageModel.Consent(clientId: record.clientId,
                                            name: resolved?.environment.name ?? resolved?.service.name ?? record.clientId,
                                            allowed: record.scopes.map { ScopeWords.describe($0, overrides: words) },
                                            grantedAt: record.grantedAt, updatedAt: record.updatedAt)
        }
    }

    /// The sessions a device secret was issued in (a live family with `device_sso`), each with the
    /// apps holding tokens in it: one device's sign-in shared by its apps (docs/native-sso.md).
    func sharedSignInRows(_ sessions: [LoginSession], _ families: [TokenFamily]) -> [AccountPageModel.SharedSignIn] {
        sessions.compactMap { session in
            let held = families.filter { $0.sessionId == session.id }.sorted { $0.createdAt < $1.createdAt }
            guard held.contains(where: { Scopes.contains($0.scope, NativeSSO.scope) }) else { return nil }
            var apps: [String] = []
            for family in held {
                // The apps sharing a sign-in are of one environment: their auth services tell them apart.
                let resolved = context.state.directory.resolve(family.clientId)
                let name = resolved?.service.name ?? resolved?.environment.name ?? family.clientId
                if !apps.contains(name) { apps.append(name) }
            }
            return AccountPageModel.SharedSignIn(id: session.id, apps: apps, signedIn: session.authTime, lastUsed: session.lastUsedAt)
        }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case .array(let items)?: items.compactMap(\.stringValue)
        case .string(let text)?: [text]
        default: []
        }
    }

    func browserRow(_ session: LoginSession, _ viewer: AccountViewer) -> AccountPageModel.Browser {
        let agent = session.userAgent.map { UserAgent(parsing: $0) }
        return AccountPageModel.Browser(
            id: session.id, browser: agent?.browser?.description ?? "Unknown browser", os: agent?.os?.description,
            address: session.clientAddress, signedIn: session.authTime, lastUsed: session.lastUsedAt,
            isCurrent: viewer.browserSessions.contains(session.id))
    }

    /// One row per configured client holding live families (app instances are devices).
    func appRows(_ families: [TokenFamily]) -> [AccountPageModel.App] {
        let now = context.clock.now()
        var rows: [AccountPageModel.App] = []
        for family in families where !family.clientId.hasPrefix(ClientRegistry.instancePrefix) {
            let used = family.rotatedAt ?? family.createdAt
            let offline = family.refreshHash != nil && (family.refreshExpiresAt.map { now < $0 } ?? false)
            if let index = rows.firstIndex(where: { $0.clientId == family.clientId }) {
                rows[index].signedIn = min(rows[index].signedIn, family.createdAt)
                rows[index].lastUsed = max(rows[index].lastUsed ?? used, used)
                rows[index].offlineAccess = rows[index].offlineAccess || offline
            } else {
                let resolved = context.state.directory.resolve(family.clientId)
                let name = resolved?.environment.name ?? resolved?.service.name ?? family.clientId
                rows.append(.init(clientId: family.clientId, name: name, signedIn: family.createdAt, lastUsed: used, offlineAccess: offline))
            }
        }
        return rows
    }

    func deviceRow(_ instance: RegisteredClient, _ families: [TokenFamily]) -> AccountPageModel.Device {
        let used = families.filter { $0.clientId == instance.clientId }.map { $0.rotatedAt ?? $0.createdAt }.max()
        return AccountPageModel.Device(clientId: instance.clientId, softwareId: instance.softwareId, deviceType: instance.deviceType,
                                       registered: instance.createdAt, lastUsed: used ?? instance.boundAt)
    }

    /// The **Second factors** section; nil when the auth service has `mfa.mode: off`.
    func factorsSection(_ viewer: AccountViewer) async throws -> AccountPageModel.SecondFactors? {
        let settings = viewer.client.service.mfa
        guard settings.mode != .off else { return nil }
        let enrolment = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
        let passkeys = (enrolment?.passkeys ?? []).map {
            AccountPageModel.Passkey(id: $0.credentialId, name: $0.name, added: $0.createdAt, lastUsed: $0.lastUsedAt)
        }
        return AccountPageModel.SecondFactors(
            mode: settings.mode.rawValue, authenticatorSince: enrolment?.totp?.createdAt, authenticatorLastUsed: enrolment?.totp?.lastUsedAt,
            offersAuthenticator: settings.methods.contains(.totp), passkeys: passkeys,
            offersPasskeys: settings.methods.contains(.webauthn) && offersPasskeys,
            recoveryCodesLeft: enrolment?.recoveryCodesLeft ?? 0, hasFactor: enrolment?.hasFactor ?? false,
            changesNeedSignIn: context.clock.now().timeIntervalSince(viewer.session.authTime) > AccountEndpoint.freshSignIn)
    }
}
