import Foundation
import IdentityConfig
import IdentityCore
import OneTimePassword
import PageLanguages
import StoreContracts

extension SecondStepSignIn {
    /// `GET /oauth/mfa/{id}`: the page of the second step, for the browser that started it.
    public func page(id: String, browser: BrowserContext) async throws(AuthorizationFailure) -> SecondStepOutcome {
        let loaded = try await load(id, browser: browser, csrfToken: nil, checkToken: false)
        do {
            return .page(try await model(loaded, showingCodes: true), status: 200)
        } catch {
            throw Self.failure(error)
        }
    }

    static func failure(_ error: any Error) -> AuthorizationFailure {
        if let failure = error as? AuthorizationFailure { return failure }
        return .cannotRedirect(.wrapping(error, "second step"))
    }

    /// The user's factors that the auth service allows now.
    func enrolment(_ loaded: Loaded) async throws -> MFAEnrolment? {
        try await mfaStore.mfaEnrolment(subject: loaded.owner.subject)
            .map { factors.usable($0, settings: loaded.client.service.mfa) }
    }

    /// Builds the page; `showingCodes` shows (and forgets) recovery codes waiting to be shown.
    func model(_ loaded: Loaded, showingCodes: Bool = false) async throws -> SecondStepPageModel {
        let client = loaded.client
        var model = SecondStepPageModel(
            kind: .verify, heading: client.service.name.map(PageText.init(verbatim:)) ?? "Sign in", account: loaded.step.username.isEmpty ? nil : loaded.step.username,
            restartAction: Self.canRestart(client) ? pageURL(loaded.id) + "/restart" : nil, action: pageURL(loaded.id),
            csrfToken: PendingAuthorizations.formToken(pendingId: loaded.id, browserBinding: loaded.binding),
            message: "", error: loaded.step.message.map(PageText.init(message:)), offersCode: true, inputMode: "numeric", totpSetup: nil,
            passkeyOptions: nil, passkeyAction: nil, passkeyCreates: false, recoveryCodes: [], continueAction: nil,
            look: client.look.reading(loaded.pending.uiLocales))
        switch loaded.step.purpose {
        case .challenge:
            model.kind = .challenge
            // The identity source's own question, in its words.
            model.message = loaded.step.challenge.map { PageText(verbatim: $0.message) } ?? "Answer the question to continue."
            model.inputMode = loaded.step.challenge?.input == "text" ? "text" : "numeric"
        case .verify:
            let enrolment = try await enrolment(loaded)
            model.offersCode = enrolment?.totp != nil || (enrolment?.recoveryCodesLeft ?? 0) > 0
            model.message = enrolment?.totp != nil
                ? "Enter the 6-digit code from your authenticator app, or one of your recovery codes."
                : "Use your passkey, or enter one of your recovery codes."
            if let enrolment, !enrolment.passkeys.isEmpty {
                let challenge = try await factors.newChallenge(pendingIdHash: loaded.idHash)
                model.passkeyOptions = factors.assertionOptions(enrolment, challenge: challenge)
                model.passkeyAction = pageURL(loaded.id) + "/passkey"
            }
        case .enrol:
            try await enrolModel(loaded, &model, showingCodes: showingCodes)
        }
        return model
    }

    private func enrolModel(_ loaded: Loaded, _ model: inout SecondStepPageModel, showingCodes: Bool) async throws {
        var step = loaded.step
        if step.satisfied {
            model.kind = .recoveryCodes
            model.offersCode = false
            model.continueAction = pageURL(loaded.id) + "/continue"
            model.message = "Your second factor is set up."
            if showingCodes, let sealed = step.sealedRecoveryCodes {
                let text = try context.vault.openString(sealed, VaultBindings.secondStep("recovery", idHash: loaded.idHash))
                model.recoveryCodes = text.split(separator: "\n").map(String.init)
                // Shown once: a reload does not show them again.
                step.sealedRecoveryCodes = nil
                try await save(loaded, step)
            } else if step.sealedRecoveryCodes == nil {
                model.message = model.message.then("Your recovery codes were shown already.")
            }
            return
        }
        model.kind = .enrol
        let settings = loaded.client.service.mfa
        let existing = try await mfaStore.mfaEnrolment(subject: loaded.owner.subject)
        model.offersCode = settings.methods.contains(.totp)
        if settings.methods.contains(.totp) {
            let secret: [UInt8]
            let binding = VaultBindings.secondStep("totp", idHash: loaded.idHash)
            if let sealed = step.pendingTOTPSecret {
                secret = Array(try context.vault.open(sealed, binding))
            } else {
                secret = TOTP.randomSecret()
                step.pendingTOTPSecret = try context.vault.seal(Data(secret), binding)
                try await save(loaded, step)
            }
            let key = Base32.encode(secret)
            let grouped = stride(from: 0, to: key.count, by: 4).map { start in
                String(key.dropFirst(start).prefix(4))
            }.joined(separator: " ")
            model.totpSetup = .init(uri: factors.otpauthURI(secret: secret, owner: loaded.owner, username: step.username,
                                                            client: loaded.client), secret: grouped)
        }
        if settings.methods.contains(.webauthn), factors.relyingParty != nil {
            let challenge = try await factors.newChallenge(pendingIdHash: loaded.idHash)
            model.passkeyOptions = factors.registrationOptions(loaded.owner, username: step.username, existing: existing,
                                                               challenge: challenge, client: loaded.client)
            model.passkeyAction = pageURL(loaded.id) + "/passkey"
            model.passkeyCreates = true
        }
        model.message = "This app requires a second factor. Set one up to continue."
    }
}
