import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// Whether an app must ask the user before it gets a code, and the hand-over to the consent
/// screen when it must (docs/consent.md). Every browser sign-in passes here before its code is
/// issued: a new sign-in (password form, identity source, second step), an SSO session, QR-code
/// login. The broker's own pages (the account page, device sign-in) are first-party and never ask.
public struct ConsentGate: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let consentStore: any ConsentStore

    /// The id a client's consents are kept under: `appKey.authServiceId` for a configured client
    /// (so `kid` and `kid.svc` share them), the instance's own id for a registered app instance.
    public static func clientKey(_ client: ResolvedClient) -> String {
        client.instance != nil ? client.clientId : "\(client.appKey).\(client.service.id)"
    }

    /// Scopes the user cannot withhold: without `openid` there is no OpenID Connect sign-in.
    static let requiredScopes: Set<String> = ["openid"]

    public func pageURL(_ id: String) -> String { "\(context.issuer)/oauth/consent/\(id)" }

    /// Whether `subject` must decide before `client` gets a code for `scope`: always for
    /// `consent.mode: required` and with `prompt=consent`; for `remembered`, when the scopes
    /// asked for are not all among those the user granted before.
    /// A back end's permission request (`permissionId`) always asks, whatever the service's settings.
    /// Claims asked for by name (`claims`) count as their scopes (docs/consent.md).
    func mustAsk(client: ResolvedClient, subject: String, scope: String, claims: ClaimsRequest?, prompt: String?, redirectURI: String,
                 permissionId: String?) async throws -> Bool {
        if permissionId != nil { return true }
        guard let settings = client.service.consent, !redirectURI.hasPrefix("\(context.issuer)/") else { return false }
        let prompts = Set((prompt ?? "").split(separator: " ").map(String.init))
        if prompts.contains("consent") || settings.mode == .required { return true }
        guard let record = try await consentStore.consent(subject: subject, clientId: Self.clientKey(client)) else { return true }
        return !Set(Self.askedScopes(scope: scope, claims: claims)).isSubset(of: record.scopes)
    }

    /// The scopes the person decides on: those asked for, then the scope of each claim the
    /// `claims` request names (OIDC Core 5.5 releases a claim as if its scope were asked for, so
    /// the person must see it, and can withhold it, all the same).
    static func askedScopes(scope: String, claims: ClaimsRequest?) -> [String] {
        var asked = scope.split(separator: " ").map(String.init)
        for claim in (claims?.idToken ?? []) + (claims?.userinfo ?? []) {
            if let implied = scopeOfClaim(claim), !asked.contains(implied) { asked.append(implied) }
        }
        return asked
    }

    /// `claims` without the claims whose scope the person did not grant.
    static func narrow(_ claims: ClaimsRequest?, to granted: [String]) -> ClaimsRequest? {
        guard var claims else { return nil }
        let kept = { (claim: String) in scopeOfClaim(claim).map(granted.contains) ?? true }
        claims.idToken = claims.idToken.filter(kept)
        claims.userinfo = claims.userinfo.filter(kept)
        return claims
    }

    /// The scope that releases `claim` (UserClaims), nil for a claim no scope guards.
    static func scopeOfClaim(_ claim: String) -> String? {
        switch claim {
        case "email", "email_verified": "email"
        case "name", "preferred_username": "profile"
        case "groups": "groups"
        default: nil
        }
    }

    /// Whether `pending`'s client must ask the user `identity` signs in as.
    func mustAsk(_ pending: PendingAuthorization, client: ResolvedClient, subject: String) async throws -> Bool {
        try await mustAsk(client: client, subject: subject, scope: pending.scope, claims: pending.claims, prompt: pending.prompt,
                          redirectURI: pending.redirectURI,
                          permissionId: pending.permissionId)
    }

    /// The subject `identity` gets at `client`'s auth service.
    static func subject(of identity: ConnectorIdentity, client: ResolvedClient) -> String {
        SubjectIdentifier.make(namespace: client.authService.namespace, userId: identity.userId)
    }

    /// Hands a signed-in person to the consent screen: `pending` is stored again under a new id
    /// (consuming `consuming`, the id hash it had, when given) with `step`, and `identity`
    /// sealed into it when the session is still to start. Returns the consent page's URL.
    func hold(_ pending: PendingAuthorization, consuming: String?, step: ConsentStep, identity: ConnectorIdentity?) async throws -> String {
        let id = Secrets.randomToken()
        let idHash = Secrets.hash(id)
        var step = step
        if let identity {
            step.sealedIdentity = try HeldIdentity.seal(identity, vault: context.vault, binding: VaultBindings.consent(idHash: idHash))
        }
        var next = pending.nextBrowserPage(at: context.clock.now())
        next.consent = step
        if let consuming {
            guard try await pendingStore.consumePending(idHash: consuming) else {
                throw AuthorizationFailure.cannotRedirect(.invalidRequest("This sign-in was already completed."))
            }
        }
        try await pendingStore.insertPending(next, idHash: idHash)
        return pageURL(id)
    }

    /// The refusal when consent is needed but cannot be asked: the sign-in did not come from the
    /// browser that started it (an app's own login, `customizedLogin: page` in another browser).
    static func cannotAsk(_ pending: PendingAuthorization, issuer: String) -> AuthorizationFailure {
        .redirect(OAuthError(.consentRequired, "This app needs your consent, which only the browser that started the sign-in can give."),
                  ErrorRedirect(pending, issuer: issuer))
    }
}
