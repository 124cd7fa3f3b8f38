import Foundation
import IdentityCore
import PageLanguages
import StoreContracts
import WebAuthn

/// Passkeys on the account page (docs/account.md): add one (the page's script runs the WebAuthn
/// ceremony and posts the answer), rename one, remove one. Challenges are single use and bound to
/// an id of the account page's own — the session showing it — as the second step binds them to
/// its pending authorization.
public struct AccountPasskeys: Sendable {
    let access: AccountAccess
    let mfaStore: any MFAStore
    let factors: SecondFactors
    let changes: AccountFactorChanges
    let handoff: AccountCodeHandoff
    var context: EngineContext { access.context }

    /// The id passkey challenges of `viewer`'s page are bound to.
    static func challengeScope(_ viewer: AccountViewer) -> String {
        Secrets.hash("account-passkey\u{0}\(viewer.session.id)")
    }

    /// `GET /account/passkeys/new`: the page with the "Create a passkey" button.
    public func page(_ request: AccountRequest) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.viewing(request, then: .passkey)
            guard viewer.client.service.mfa.mode != .off, viewer.client.service.mfa.methods.contains(.webauthn),
                  factors.relyingParty != nil else {
                try await access.refuse(viewer, "This sign-in does not use passkeys.")
            }
            try await access.requireFreshSignIn(viewer, then: .passkey)
            let existing = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
            let challenge = try await factors.newChallenge(pendingIdHash: Self.challengeScope(viewer))
            guard let options = factors.registrationOptions(viewer.owner, username: viewer.session.userId, existing: existing,
                                                            challenge: challenge, client: viewer.client) else {
                try await access.refuse(viewer, "This sign-in does not use passkeys.")
            }
            return AccountResult(.passkeySetup(PasskeySetupModel(
                heading: viewer.client.service.name.map(PageText.init(verbatim:)) ?? "Your account", clientId: viewer.client.clientId, csrfToken: viewer.csrfToken,
                options: options, look: viewer.client.look)))
        }
    }

    private struct TokenOnly: Decodable { var csrf_token: String }

    /// `POST /account/passkeys` (JSON from the page's script: `csrf_token`, `challenge`,
    /// `credential`, `name`): registers the passkey. The script then goes where `redirect` says
    /// (the account page, showing recovery codes once when this was the first factor).
    public func add(_ request: AccountRequest, body: Data) async -> AccountPasskeyAnswer {
        let token = try? JSONDecoder().decode(TokenOnly.self, from: body)
        let result: AccountResult = await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: token?.csrf_token)
            let settings = viewer.client.service.mfa
            guard settings.mode != .off, settings.methods.contains(.webauthn) else { throw OAuthError.invalidRequest("This sign-in does not use passkeys.") }
            if !access.signedInRecently(viewer) {
                return AccountResult(.redirect(access.urls.page(viewer.client.clientId, path: "/passkeys/new")))
            }
            guard let post = try? JSONDecoder().decode(PasskeyPost<PasskeyRegistrationResponse>.self, from: body) else {
                throw OAuthError.invalidRequest("The browser's passkey answer could not be read.")
            }
            let existing = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
            switch try await factors.register(post, owner: viewer.owner, existing: existing, pendingIdHash: Self.challengeScope(viewer),
                                              client: viewer.client, address: request.clientAddress) {
            case .failure(let error):
                throw error
            case .success(let codes):
                _ = try await changes.proved(["hwk"], viewer)
                let handle = try await handoff.hold(codes, viewer: viewer)
                return AccountResult(.redirect(access.urls.page(viewer.client.clientId, [("notice", "passkey_added"), ("codes", handle)])))
            }
        }
        switch result.outcome {
        case .redirect(let location): return AccountPasskeyAnswer(redirect: location, error: nil, status: 200)
        case .errorPage(let error): return AccountPasskeyAnswer(redirect: nil, error: error.errorDescription, status: error.status >= 500 ? 500 : 400)
        default: return AccountPasskeyAnswer(redirect: access.urls.page(request.clientId ?? ""), error: nil, status: 200)
        }
    }

    /// `POST /account/passkeys/rename` (`passkey`, `name`): a new label (1–64 characters).
    public func rename(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                try await access.refuse(viewer, "A passkey's name is 1 to 64 characters.")
            }
            guard let id = form["passkey"], id.utf8.count <= 1024,
                  try await mfaStore.renamePasskey(subject: viewer.owner.subject, credentialId: id, name: name) else {
                try await access.refuse(viewer, "That passkey is not registered to your account here.")
            }
            access.record(.mfaPasskeyRenamed, viewer, ["credential": String(id.prefix(16))])
            return try await access.done(viewer, "Passkey renamed to “\(name)”.")
        }
    }

    /// `POST /account/passkeys/remove` (`passkey`).
    public func remove(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await AccountResult.answering {
            let viewer = try await access.acting(request, csrfToken: form["csrf_token"])
            try await access.requireFreshSignIn(viewer, then: .account)
            guard let id = form["passkey"], id.utf8.count <= 1024,
                  let passkey = try await mfaStore.passkey(credentialId: id),
                  passkey.owner.subject == viewer.owner.subject,
                  try await mfaStore.removePasskey(subject: viewer.owner.subject, credentialId: id) else {
                try await access.refuse(viewer, "That passkey is not registered to your account here.")
            }
            access.record(.mfaRemoved, viewer, ["method": "webauthn", "credential": String(id.prefix(16))])
            let left = try await changes.afterRemoval(viewer)
            let notice: PageText = "Passkey “\(passkey.name)” removed: it no longer signs you in."
            return try await access.done(viewer, notice.then(left))
        }
    }
}
