import Foundation
import IdentityCore
import StoreContracts

/// A finished sign-in: the answer with its code for the client, the session it started, and the
/// browser's new SSO cookie.
public struct SignInCompletion: Sendable {
    public let redirect: ClientAnswer
    public let session: LoginSession
    /// The browser finishing it is the one that started it (its binding cookie matched): only
    /// then does it get the SSO cookie (docs/security.md, rule 4). False for API-mode temp login
    /// URIs.
    public var browserBound = false
    /// The SSO cookie to set: a fresh value for a browser-bound sign-in (docs/security.md, rule
    /// 10), nil otherwise (or when it could not be stored: the sign-in still stands).
    public var sso: SSOCookie?
}

/// How every browser sign-in ends, whichever way it went: what the password form, the identity
/// source's callback, the second step and QR-code login answer once the person is through (or
/// needs the second step). Controllers render it with one helper; intermediate pages (the form
/// again, the QR code still waiting, the second-step page) are each flow's own.
public enum BrowserSignInResult: Sendable {
    /// Back to the client with a code; set `completion.sso`.
    case signedIn(SignInCompletion)
    /// The first factor passed; the browser continues on this second-step page (docs/mfa.md).
    case secondStep(String)
}

/// Finishes browser sign-ins (docs/architecture.md, "Browser sign-ins"): the pending authorization,
/// the session and its code are stored in one write (``PendingAuthorizations``), then the browser
/// that started the sign-in gets a new SSO cookie (``SSOSessions/remember(_:client:ssoToken:)``).
/// The password form, the identity source's callback, the second step and QR-code login all end
/// here, so no controller builds a client id or an SSO cookie of its own.
struct BrowserSignIn: Sendable {
    let authorizations: PendingAuthorizations
    let sso: SSOSessions

    /// Finishes with a new session for `identity` (see ``PendingAuthorizations``'s `complete`).
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String?, client: ResolvedClient,
                  identity: ConnectorIdentity, amr: [String], browser: BrowserContext, bound: Bool,
                  throttleReset: PendingThrottleReset? = nil) async throws -> SignInCompletion {
        let completion = try await authorizations.complete(pending, consuming: pendingIdHash, client: client, identity: identity, amr: amr,
                                                           browserBound: bound, clientAddress: browser.clientAddress,
                                                           userAgent: browser.userAgent, throttleReset: throttleReset)
        return await remembered(completion, client: client, ssoToken: browser.ssoToken)
    }

    /// Finishes with a session that exists already (QR-code login: the confirming app's).
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String, existing session: LoginSession,
                  client: ResolvedClient, browser: BrowserContext) async throws -> SignInCompletion {
        let completion = try await authorizations.complete(pending, consuming: pendingIdHash, existing: session, client: client)
        return await remembered(completion, client: client, ssoToken: browser.ssoToken)
    }

    private func remembered(_ completion: SignInCompletion, client: ResolvedClient, ssoToken: String?) async -> SignInCompletion {
        guard completion.browserBound else { return completion }
        var remembered = completion
        remembered.sso = await sso.remember(completion.session, client: client, ssoToken: ssoToken)
        return remembered
    }
}
