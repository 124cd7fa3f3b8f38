import Foundation
import IdentityCore
import StoreContracts
import WebAuthn

/// Passkeys on the account page (docs/account.md): add one (the page's script runs the WebAuthn
/// ceremony and posts the answer), rename one, remove one. Challenges are single use and bound to
/// an id of the account page's own — the session showing it — as the second step binds them to
/// its pending authorization.
extension AccountEndpoint {
    /// The id passkey challenges of `viewer`'s page are bound to.
    static func challengeScope(_ viewer: AccountViewer) -> String {
        Secrets.hash("account-passkey\u{0}\(viewer.session.id)")
    }

    /// `GET /account/passkeys/new`: the page with the "Create a passkey" button.
    public func passkeyPage(_ request: AccountRequest) async -> AccountResult {
        await respond {
            let viewer = try await viewing(request, then: .passkey)
            guard viewer.client.service.mfa.mode != .off, viewer.client.service.mfa.methods.contains(.webauthn),
                  factors.relyingParty != nil else {
                try await refuse(viewer, "This sign-in does not use passkeys.")
            }
            try await requireFreshSignIn(viewer, then: .passkey)
            let existing = try await mfaStore.mfaEnrolment(subject: viewer.owner.subject)
            let challenge = try await factors.newChallenge(pendingIdHash: Self.challengeScope(viewer))
            guard let options = factors.registrationOptions(viewer.owner, username: viewer.session.userId, existing: existing,
                                                            challenge: challenge, client: viewer.client) else {
                try await refuse(viewer, "This sign-in does not use passkeys.")
            }
            return AccountResult(.passkeySetup(PasskeySetupModel(
                heading: viewer.client.service.name ?? "Your account", clientId: viewer.client.clientId, csrfToken: viewer.csrfToken,
                options: options, stylesheet: viewer.client.stylesheet)))
        }
    }

    private struct TokenOnly: Decodable { var csrf_token: String }

    /// `POST /account/passkeys` (JSON from the page's script: `csrf_token`, `challenge`,
    /// `credential`, `name`): registers the passkey. The script then goes where `redirect` says
    /// (the account page, showing recovery codes once when this was the first factor).
    public func addPasskey(_ request: AccountRequest, body: Data) async -> AccountPasskeyAnswer {
        let token = try? JSONDecoder().decode(TokenOnly.self, from: body)
        let result: AccountResult = await respond {
            let viewer = try await acting(request, csrfToken: token?.csrf_token)
            let settings = viewer.client.service.mfa
            guard settings.mode != .off, settings.methods.contains(.webauthn) else { throw OAuthError.invalidRequest("This sign-in does not use passkeys.") }
            if context.clock.now().timeIntervalSince(viewer.session.authTime) > Self.freshSignIn {
                return AccountResult(.redirect(pageURL(viewer.client.clientId, path: "/passkeys/new")))
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
                _ = try await proved(["hwk"], viewer)
                let handle = try await holdRecoveryCodes(codes, viewer: viewer)
                return AccountResult(.redirect(pageURL(viewer.client.clientId, [("notice", "passkey_added"), ("codes", handle)])))
            }
        }
        switch result.outcome {
        case .redirect(let location): return AccountPasskeyAnswer(redirect: location, error: nil, status: 200)
        case .errorPage(let error): return AccountPasskeyAnswer(redirect: nil, error: error.errorDescription, status: error.status >= 500 ? 500 : 400)
        default: return AccountPasskeyAnswer(redirect: pageURL(request.clientId ?? ""), error: nil, status: 200)
        }
    }

    /// `POST /account/passkeys/rename` (`passkey`, `name`): a new label (1–64 characters).
    public func renamePasskey(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await respond {
            let viewer = try await acting(request, csrfToken: form["csrf_token"])
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                try await refuse(viewer, "A passkey's name is 1 to 64 characters.")
            }
            guard let id = form["passkey"], id.utf8.count <= 1024,
                  try await mfaStore.renamePasskey(subject: viewer.owner.subject, credentialId: id, name: name) else {
                try await refuse(viewer, "That passkey is not registered to your account here.")
            }
            record(.mfaPasskeyRenamed, viewer, ["credential": String(id.prefix(16))])
            return try await done(viewer, "Passkey renamed to “\(name)”.")
        }
    }

    /// `POST /account/passkeys/remove` (`passkey`).
    public func removePasskey(_ request: AccountRequest, form: OAuthParameters) async -> AccountResult {
        await respond {
            let viewer = try await acting(request, csrfToken: form["csrf_token"])
            try await requireFreshSignIn(viewer, then: .account)
            guard let id = form["passkey"], id.utf8.count <= 1024,
                  let passkey = try await mfaStore.passkey(credentialId: id),
                  passkey.owner.subject == viewer.owner.subject,
                  try await mfaStore.removePasskey(subject: viewer.owner.subject, credentialId: id) else {
                try await refuse(viewer, "That passkey is not registered to your account here.")
            }
            record(.mfaRemoved, viewer, ["method": "webauthn", "credential": String(id.prefix(16))])
            let left = try await afterRemoval(viewer)
            return try await done(viewer, "Passkey “\(passkey.name)” removed: it no longer signs you in." + left)
        }
    }

    /// Keeps recovery codes to show once on the page the script goes to next; returns the
    /// handle the page's URL names (nil when there are none).
    private func holdRecoveryCodes(_ codes: [String], viewer: AccountViewer) async throws -> String? {
        guard !codes.isEmpty else { return nil }
        let handle = Secrets.randomToken(bytes: 16)
        let hash = Self.codesKey(handle, viewer: viewer)
        let sealed = try context.vault.seal(codes.joined(separator: "\n"), VaultBindings.accountCodes(hash: hash))
        try await grantStore.insertOneTimeGrant(hash: hash, sealed: sealed, expiresAt: context.clock.now().addingTimeInterval(300))
        return handle
    }

    /// The recovery codes a handle names, for this session only, taken (shown once).
    func takeRecoveryCodes(_ handle: String?, viewer: AccountViewer) async throws -> [String] {
        guard let handle, handle.utf8.count <= 64 else { return [] }
        let hash = Self.codesKey(handle, viewer: viewer)
        guard let taken = try await grantStore.takeOneTimeGrant(hash: hash),
              context.clock.now() < taken.expiresAt,
              let text = try? context.vault.openString(taken.sealed, VaultBindings.accountCodes(hash: hash)) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    static func codesKey(_ handle: String, viewer: AccountViewer) -> String {
        Secrets.hash("account-codes\u{0}\(viewer.session.id)\u{0}\(handle)")
    }
}
