import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts
import WebAuthn

extension SecondStepSignIn {
    /// `POST /oauth/mfa/{id}` (form: `csrf_token`, `otp`): a challenge answer, a code of an
    /// enrolled factor, or the code confirming an authenticator app being set up.
    public func submitCode(id: String, parameters: OAuthParameters,
                           browser: BrowserContext) async throws(AuthorizationFailure) -> SecondStepOutcome {
        let loaded = try await load(id, browser: browser, csrfToken: parameters["csrf_token"], checkToken: true)
        let clientAddress = browser.clientAddress
        let code = (parameters["otp"] ?? "").trimmingCharacters(in: .whitespaces)
        do {
            if code.isEmpty { return try await failed(loaded, .accessDenied("Enter the code.")) }
            switch loaded.step.purpose {
            case .challenge:
                return try await answerChallenge(loaded, code, clientAddress)
            case .verify:
                guard let enrolment = try await enrolment(loaded), enrolment.hasFactor else {
                    return try await failed(loaded, .accessDenied("Your second factor was removed. Sign in again."))
                }
                switch try await factors.verifyCode(code, enrolment: enrolment, client: loaded.client, address: clientAddress) {
                case .success(let method): return try await complete(loaded, adding: [method])
                case .failure(let error): return try await failed(loaded, error)
                }
            case .enrol:
                return try await confirmTOTP(loaded, code, clientAddress)
            }
        } catch {
            throw Self.failure(error)
        }
    }

    private func confirmTOTP(_ loaded: Loaded, _ code: String, _ address: String?) async throws -> SecondStepOutcome {
        if loaded.step.satisfied { return .next(pageURL(loaded.id)) }
        guard loaded.client.service.mfa.methods.contains(.totp), let sealed = loaded.step.pendingTOTPSecret else {
            return try await failed(loaded, .accessDenied("Set up the authenticator app on this page first."))
        }
        let secret = Array(try context.vault.open(sealed, VaultBindings.secondStep("totp", idHash: loaded.idHash)))
        let existing = try await mfaStore.mfaEnrolment(subject: loaded.owner.subject)
        switch try await factors.confirmTOTP(secret: secret, code: code, owner: loaded.owner, existing: existing,
                                             client: loaded.client, address: address) {
        case .failure(let error):
            return try await failed(loaded, error)
        case .success(let codes):
            return try await enrolled(loaded, method: "otp", codes: codes)
        }
    }

    /// A factor was enrolled: show the recovery codes once, or finish when there are none to show.
    private func enrolled(_ loaded: Loaded, method: String, codes: [String]) async throws -> SecondStepOutcome {
        guard !codes.isEmpty else { return try await complete(loaded, adding: [method]) }
        var step = loaded.step
        if !step.amr.contains(method) { step.amr.append(method) }
        step.satisfied = true
        step.pendingTOTPSecret = nil
        step.message = nil
        step.sealedRecoveryCodes = try context.vault.seal(codes.joined(separator: "\n"),
                                                          VaultBindings.secondStep("recovery", idHash: loaded.idHash))
        try await save(loaded, step)
        return .next(pageURL(loaded.id))
    }

    /// `POST /oauth/mfa/{id}/continue` (form: `csrf_token`): finishes after the recovery codes.
    public func proceed(id: String, parameters: OAuthParameters,
                        browser: BrowserContext) async throws(AuthorizationFailure) -> SecondStepOutcome {
        let loaded = try await load(id, browser: browser, csrfToken: parameters["csrf_token"], checkToken: true)
        guard loaded.step.satisfied else { return .next(pageURL(id)) }
        return try await complete(loaded, adding: [])
    }

    private struct TokenOnly: Decodable { var csrf_token: String }

    /// `POST /oauth/mfa/{id}/passkey` (JSON from the page's script): a passkey sign-in, or a new
    /// passkey being registered.
    public func submitPasskey(id: String, body: Data,
                              browser: BrowserContext) async throws(AuthorizationFailure) -> SecondStepOutcome {
        let token = try? JSONDecoder().decode(TokenOnly.self, from: body)
        let loaded = try await load(id, browser: browser, csrfToken: token?.csrf_token, checkToken: true)
        let clientAddress = browser.clientAddress
        do {
            switch loaded.step.purpose {
            case .challenge:
                return try await failed(loaded, .invalidRequest("Answer the question on this page."))
            case .verify:
                guard let post = try? JSONDecoder().decode(PasskeyPost<PasskeyAssertionResponse>.self, from: body) else {
                    return try await failed(loaded, .accessDenied("The browser's passkey answer could not be read."))
                }
                guard let enrolment = try await enrolment(loaded), !enrolment.passkeys.isEmpty else {
                    return try await failed(loaded, .accessDenied("No passkey is registered for your account here."))
                }
                switch try await factors.verifyAssertion(post, enrolment: enrolment, pendingIdHash: loaded.idHash,
                                                         client: loaded.client, address: clientAddress) {
                case .success(let method): return try await complete(loaded, adding: [method])
                case .failure(let error): return try await failed(loaded, error)
                }
            case .enrol:
                if loaded.step.satisfied { return .next(pageURL(loaded.id)) }
                guard loaded.client.service.mfa.methods.contains(.webauthn),
                      let post = try? JSONDecoder().decode(PasskeyPost<PasskeyRegistrationResponse>.self, from: body) else {
                    return try await failed(loaded, .accessDenied("The browser's passkey answer could not be read."))
                }
                let existing = try await mfaStore.mfaEnrolment(subject: loaded.owner.subject)
                switch try await factors.register(post, owner: loaded.owner, existing: existing, pendingIdHash: loaded.idHash,
                                                  client: loaded.client, address: clientAddress) {
                case .success(let codes): return try await enrolled(loaded, method: "hwk", codes: codes)
                case .failure(let error): return try await failed(loaded, error)
                }
            }
        } catch {
            throw Self.failure(error)
        }
    }

    /// One round of an AuthLink challenge: the answer goes to the connector, whose verdict reads
    /// like a login's (at most three rounds).
    private func answerChallenge(_ loaded: Loaded, _ response: String, _ address: String?) async throws -> SecondStepOutcome {
        guard let challenge = loaded.step.challenge else { throw Self.expired }
        let state = try context.vault.openString(challenge.sealedState, VaultBindings.secondStep("challenge", idHash: loaded.idHash))
        let question = LoginChallenge(message: challenge.message, state: state, input: challenge.input)
        switch try await checker.answer(question, response: response, username: loaded.step.username, client: loaded.client,
                                        clientAddress: address) {
        case .failure(let error):
            return try await failed(loaded, error)
        case .success(.challenge(let next)):
            guard challenge.rounds + 1 < Self.maxChallengeRounds else {
                _ = try await pendingStore.consumePending(idHash: loaded.idHash)
                return .redirect(loaded.target.answer(for: .accessDenied("Too many rounds of questions. Sign in again.")))
            }
            var step = loaded.step
            step.challenge = try sealed(next, rounds: challenge.rounds + 1, idHash: loaded.idHash)
            step.message = nil
            try await save(loaded, step)
            var updated = loaded
            updated.step = step
            return .page(try await model(updated), status: 200)
        case .success(.identity(let identity, _)):
            // The identity source ran its own second factor.
            var amr = loaded.step.amr
            for value in ["otp", "mfa"] where !amr.contains(value) { amr.append(value) }
            return .finished(try await signIns.complete(loaded.pending, consuming: loaded.idHash, client: loaded.client,
                                                        identity: identity, amr: amr, browser: loaded.browser, bound: true))
        }
    }
}
