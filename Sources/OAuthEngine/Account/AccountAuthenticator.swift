import Foundation
import IdentityConfig
import IdentityCore
import OneTimePassword
import PageLanguages
import StoreContracts

/// Second factors on the account page (docs/account.md, docs/mfa.md): set up or remove the
/// authenticator app, make new recovery codes. Each needs a sign-in within the last five minutes
/// (otherwise the person signs in again first); each is an audit event. The checks themselves
/// (codes, throttling, sealing) are the second step's (`SecondFactors`).
public struct AccountAuthenticator: Sendable {
    let access: AccountAccess
    let mfaStore: any MFAStore
    let factors: SecondFactors
    let changes: AccountFactorChanges
    var context: EngineContext { access.context }

    /// `GET /account/authenticator`: a new key as a QR code and as text, and the form that
    /// confirms it with a code from the app.
    public func page(_ request: AccountRequest) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.viewing(request, then: .authenticator)
            try await checkAuthenticatorSetup(viewer)
            try await access.requireFreshSignIn(viewer, then: .authenticator)
            return AccountResult(.authenticatorSetup(try setupModel(viewer, secret: TOTP.randomSecret(), error: nil), status: 200))
        }
    }

    /// `POST /account/authenticator` (`setup`, `otp`): the code confirms the key and enrols it
    /// (with ten recovery codes, shown once, when it is the user's first factor).
    public func confirm(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            try await checkAuthenticatorSetup(viewer)
            try await access.requireFreshSignIn(viewer, then: .authenticator)
            let binding = VaultBindings.accountSetup(sessionId: viewer.session.id)
            guard let setup = form["setup"], setup.utf8.count <= 512, let bytes = Base64URL.decode(setup),
                  let secret = try? context.vault.open(Data(bytes), binding), secret.count >= 10, secret.count <= 64 else {
                throw OAuthError.invalidRequest("The set-up form is no longer valid. Start setting up the authenticator app again.")
            }
            let existing = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
            let code = (form["otp"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty else {
                return AccountResult(.authenticatorSetup(try setupModel(viewer, secret: Array(secret), error: "Enter the code."), status: 400))
            }
            switch try await factors.confirmTOTP(secret: Array(secret), code: code, owner: viewer.owner, existing: existing,
                                                 client: viewer.client, address: request.clientAddress) {
            case .failure(let error):
                let status = error.status == 429 ? 429 : 400
                return AccountResult(.authenticatorSetup(try setupModel(viewer, secret: Array(secret), error: PageText(message: error.errorDescription)),
                                                         status: status))
            case .success(let codes):
                let viewer = try await changes.proved(["otp"], viewer)
                let notice: PageText = "Authenticator app set up: sign-ins now ask for its code."
                return try await access.done(viewer, notice.then(codes.isEmpty ? nil : "Keep the recovery codes below somewhere safe."),
                                             codes: codes)
            }
        }
    }

    /// `POST /account/authenticator/remove`.
    public func remove(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            try await access.requireFreshSignIn(viewer, then: .account)
            guard try await mfaStore.removeTOTP(subject: viewer.owner.subject) else {
                try await access.refuse(viewer, "You have no authenticator app set up here.")
            }
            access.record(.mfaRemoved, viewer, ["method": "totp"])
            let left = try await changes.afterRemoval(viewer)
            let notice: PageText = "Authenticator app removed: its codes no longer work."
            return try await access.done(viewer, notice.then(left))
        }
    }

    /// `POST /account/recovery-codes`: ten new codes, shown once; the old ones stop working.
    public func renewRecoveryCodes(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            try await access.requireFreshSignIn(viewer, then: .account)
            let enrolment = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
            guard enrolment?.hasFactor == true else {
                try await access.refuse(viewer, "Recovery codes stand in for a second factor: set one up first.")
            }
            let codes = RecoveryCodes.generate()
            try await mfaStore.replaceRecoveryCodes(subject: viewer.owner.subject, hashes: RecoveryCodes.hashes(codes, subject: viewer.owner.subject),
                                                 at: context.clock.now())
            access.record(.mfaRecoveryCodesRenewed, viewer, ["count": String(codes.count)])
            return try await access.done(viewer, "New recovery codes made: the old ones no longer work. Keep these somewhere safe.", codes: codes)
        }
    }

    /// Refuses setting up an authenticator app where the auth service does not use them, or
    /// when the user has one already (remove it first).
    private func checkAuthenticatorSetup(_ viewer: AccountViewer) async throws {
        let settings = viewer.client.service.mfa
        guard settings.mode != .off, settings.methods.contains(.totp) else {
            try await access.refuse(viewer, "This sign-in does not use authenticator apps.")
        }
        if try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)?.totp != nil {
            try await access.refuse(viewer, "You have an authenticator app set up already: remove it first to set up another.")
        }
    }

    private func setupModel(_ viewer: AccountViewer, secret: [UInt8], error: PageText?) throws -> AuthenticatorSetupModel {
        let sealed = try context.vault.seal(Data(secret), VaultBindings.accountSetup(sessionId: viewer.session.id))
        let key = Base32.encode(secret)
        let grouped = stride(from: 0, to: key.count, by: 4).map { String(key.dropFirst($0).prefix(4)) }.joined(separator: " ")
        return AuthenticatorSetupModel(
            heading: viewer.client.service.name.map(PageText.init(verbatim:)) ?? "Your account", clientId: viewer.client.clientId, csrfToken: viewer.csrfToken,
            uri: factors.otpauthURI(secret: secret, owner: viewer.owner, username: viewer.session.userId, client: viewer.client),
            secret: grouped, sealedSetup: Base64URL.encode(Array(sealed)), error: error, look: viewer.client.look)
    }
}
