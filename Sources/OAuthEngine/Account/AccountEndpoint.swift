import Foundation
import IdentityConfig
import IdentityCore
import PageLanguages
import StoreContracts

/// The user's own account page (docs/account.md): `GET /account?client_id=C` shows the account
/// of the auth service `C` selects to the person signed in to it in this browser — where they
/// are signed in, which apps and devices hold their tokens, their second factors — and the form
/// posts end what they do not recognise. Without a sign-in the person signs in first through
/// the broker's own flow (``signIn``).
///
/// Every change is a POST whose `csrf_token` is bound to this browser's SSO cookie and session;
/// every row id a form names is looked up in the same user's listing again, so another user's
/// (or another auth service's) rows can be neither seen nor changed. Each concern is a part of
/// its own holding only the stores it uses: ``sessions`` (sign-outs), ``authenticator`` and
/// ``passkeys`` (second factors), ``signIn`` (the page's own sign-in and its callback).
public struct AccountEndpoint: Sendable {
    let access: AccountAccess
    let handoff: AccountCodeHandoff
    public let sessions: AccountSessionActions
    public let consents: AccountConsents
    public let authenticator: AccountAuthenticator
    public let passkeys: AccountPasskeys
    public let signIn: AccountSignIn

    /// How recent the sign-in must be to add or remove a second factor or make new recovery codes.
    public static let freshSignIn: TimeInterval = 300
    /// How long a started sign-in to the page can come back.
    public static var flowLifetime: TimeInterval { AccountSignIn.flowLifetime }

    /// Built by the composition root (``BrokerEngine``), which hands each part the store roles
    /// it uses.
    init(context: EngineContext, sessionStore: any SessionStore, codeStore: any AuthorizationCodeStore, familyStore: any TokenFamilyStore,
         instanceStore: any RegisteredClientStore, grantStore: any OneTimeGrantStore, mfaStore: any MFAStore,
         consentStore: any ConsentStore, permissions: PermissionNotifications, sso: SSOSessions,
         authorize: AuthorizeEndpoint, factors: SecondFactors, registration: RegistrationEndpoint) {
        let listing = AccountListing(context: context, sessionStore: sessionStore, familyStore: familyStore, instanceStore: instanceStore,
                                     mfaStore: mfaStore, consentStore: consentStore, offersPasskeys: factors.relyingParty != nil)
        signIn = AccountSignIn(context: context, codeStore: codeStore, sessionStore: sessionStore, sso: sso, authorize: authorize)
        access = AccountAccess(context: context, sso: sso, factors: factors, listing: listing, signIns: signIn)
        handoff = AccountCodeHandoff(context: context, grantStore: grantStore)
        let changes = AccountFactorChanges(context: context, mfaStore: mfaStore)
        sessions = AccountSessionActions(access: access, sessionStore: sessionStore, familyStore: familyStore,
                                         instanceStore: instanceStore, registration: registration)
        consents = AccountConsents(access: access, consentStore: consentStore, sessionStore: sessionStore, familyStore: familyStore,
                                   permissions: permissions)
        authenticator = AccountAuthenticator(access: access, mfaStore: mfaStore, factors: factors, changes: changes)
        passkeys = AccountPasskeys(access: access, mfaStore: mfaStore, factors: factors, changes: changes, handoff: handoff)
    }

    /// The page's addresses: the page itself, its pages, and the sign-in's callback.
    public var urls: AccountURLs { access.urls }

    /// `GET /account`: the page, or the sign-in first. `notice` names a fixed message
    /// (``notices``); `codes` is the handle of recovery codes to show once.
    public func show(_ request: AccountRequest, notice: String?, codes: String?) async -> AccountResult {
        await AccountResult.answering {
            let client = try access.resolve(request.clientId)
            guard let viewer = try await access.viewer(client, request) else {
                return await signIn.signIn(client, request, then: .account, reauthenticate: false)
            }
            let shown = try await handoff.take(codes, viewer: viewer)
            return AccountResult(.page(try await access.listing.model(viewer, notice: notice.flatMap { Self.notices[$0] }, codes: shown),
                                       status: 200))
        }
    }

    /// Fixed messages a redirect back to the page may name (`notice=`); nothing else is shown.
    static let notices: [String: PageText] = [
        "signed_in_again": PageText("You signed in again: for the next 5 minutes you can add or remove second factors."),
        "passkey_added": PageText("Passkey added."),
    ]
}
