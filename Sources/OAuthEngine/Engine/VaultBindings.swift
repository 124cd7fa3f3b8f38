import IdentityCore

/// The associated data every value the vault seals is bound to (docs/operations.md, "Vault"):
/// purpose, owning row and scope, so a ciphertext moved to another row or purpose does not open.
/// One place, so that `idconnect vault rotate` re-seals each kind exactly as it was sealed.
public enum VaultBindings {
    /// A session's upstream token: session id and auth service id.
    public static func upstream(sessionId: String, authServiceId: String) -> Vault.Binding {
        .init(purpose: "upstream", owner: sessionId, scope: authServiceId)
    }

    /// The token response kept for a refresh token's grace period.
    public static func grace(familyId: String) -> Vault.Binding { .init(purpose: "grace", owner: familyId) }

    /// A signing key's private key.
    public static func signingKey(kid: String) -> Vault.Binding { .init(purpose: "signing-key", owner: kid) }

    /// What an app-to-web `css` value stands for, under the value's hash.
    static func webSSO(hash: String) -> Vault.Binding { .init(purpose: "css", owner: hash) }

    /// A pushed authorization request's parameters, under its `request_uri`'s hash.
    static func pushed(hash: String) -> Vault.Binding { .init(purpose: "par", owner: hash) }

    /// A user's authenticator-app secret: the user's subject, within the auth service's namespace.
    public static func totp(subject: String, namespace: String) -> Vault.Binding {
        .init(purpose: "mfa-totp", owner: subject, scope: namespace)
    }

    /// What a pending second step keeps sealed (`part`: `identity`, `challenge`, `totp`,
    /// `recovery`), under the pending authorization's id hash.
    static func secondStep(_ part: String, idHash: String) -> Vault.Binding {
        .init(purpose: "second-step-\(part)", owner: idHash)
    }

    /// The identity a sign-in waiting for consent keeps sealed, under the pending authorization's id hash.
    static func consent(idHash: String) -> Vault.Binding { .init(purpose: "consent-identity", owner: idHash) }

    /// The account page's own sign-in between its start and its callback (the `idc_account`
    /// cookie): the PKCE verifier and state nobody else sees.
    static func accountFlow() -> Vault.Binding { .init(purpose: "account-flow", owner: "") }

    /// A device sign-in between its confirmation and its callback (the `idc_device` cookie):
    /// the PKCE verifier, state and device code hash nobody else sees.
    static func deviceFlow() -> Vault.Binding { .init(purpose: "device-flow", owner: "") }

    /// A native-SSO device secret (docs/native-sso.md): the session and environment it stands for.
    static func deviceSecret() -> Vault.Binding { .init(purpose: "device-secret", owner: "") }

    /// An authenticator-app key being set up from the account page (a hidden form field), bound
    /// to the session showing the page.
    static func accountSetup(sessionId: String) -> Vault.Binding { .init(purpose: "account-totp", owner: sessionId) }

    /// Recovery codes waiting to be shown once on the account page, under their handle's hash.
    static func accountCodes(hash: String) -> Vault.Binding { .init(purpose: "account-codes", owner: hash) }

    /// A redirect connector's state between the redirect and the callback.
    static func upstreamState(idHash: String) -> Vault.Binding { .init(purpose: "upstream-state", owner: idHash) }

    /// Where a sign-out passed on to the identity source returns to, under its RelayState's hash.
    static func upstreamLogout(hash: String) -> Vault.Binding { .init(purpose: "upstream-logout", owner: hash) }
}
