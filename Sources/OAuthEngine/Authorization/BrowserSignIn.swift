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
/// source's callback, the second step, QR-code login and the consent screen answer once the
/// person is through (or needs another page first). Controllers render it with one helper;
/// intermediate pages (the form again, the QR code still waiting, the second-step page) are each
/// flow's own.
public enum BrowserSignInResult: Sendable {
    /// Back to the client with a code; set `completion.sso`.
    case signedIn(SignInCompletion)
    /// The first factor passed; the browser continues on this second-step page (docs/mfa.md).
    case secondStep(String)
    /// The person is signed in; the browser continues on this consent page (docs/consent.md).
    case consent(String)
}

/// Finishes browser sign-ins (docs/architecture.md, "Browser sign-ins"): an app that needs the
/// user's consent first hands the person to the consent screen (``ConsentGate``); otherwise the
/// pending authorization, the session and its code are stored in one write
/// (``PendingAuthorizations``), then the browser that started the sign-in gets a new SSO cookie
/// (``SSOSessions/remember(_:client:ssoToken:)``). The password form, the identity source's
/// callback, the second step, QR-code login and the consent screen all end here, so no
/// controller builds a client id or an SSO cookie of its own.
struct BrowserSignIn: Sendable {
    let authorizations: PendingAuthorizations
    let sso: SSOSessions
    let consent: ConsentGate

    /// Finishes with a new session for `identity` (see ``PendingAuthorizations``'s `complete`),
    /// or holds it for the consent screen.
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String?, client: ResolvedClient,
                  identity: ConnectorIdentity, amr: [String], browser: BrowserContext, bound: Bool,
                  throttleReset: PendingThrottleReset? = nil) async throws -> BrowserSignInResult {
        let subject = ConsentGate.subject(of: identity, client: client)
        if try await consent.mustAsk(pending, client: client, subject: subject) {
            guard bound else { throw ConsentGate.cannotAsk(pending, issuer: authorizations.context.issuer) }
            try await throttleReset?.settle()
            let step = ConsentStep(subject: subject, userId: identity.userId,
                                   displayName: identity.attributes["name"]?.stringValue ?? identity.userId, amr: amr)
            return .consent(try await consent.hold(pending, consuming: pendingIdHash, step: step, identity: identity))
        }
        return .signedIn(try await finish(pending, consuming: pendingIdHash, client: client, identity: identity, amr: amr,
                                          browser: browser, bound: bound, throttleReset: throttleReset))
    }

    /// Finishes with a session that exists already (QR login: the confirming app's; a stepped-up
    /// SSO session), or holds it for the consent screen.
    func complete(_ pending: PendingAuthorization, consuming pendingIdHash: String, existing session: LoginSession,
                  client: ResolvedClient, browser: BrowserContext) async throws -> BrowserSignInResult {
        if try await consent.mustAsk(pending, client: client, subject: session.subject) {
            let step = ConsentStep(subject: session.subject, userId: session.userId,
                                   displayName: session.attributes["name"]?.stringValue ?? session.userId, sessionId: session.id,
                                   amr: session.amr)
            return .consent(try await consent.hold(pending, consuming: pendingIdHash, step: step, identity: nil))
        }
        return .signedIn(try await finish(pending, consuming: pendingIdHash, existing: session, client: client, browser: browser))
    }

    /// Stores the new session and its code, without asking for consent (it was given, or is not needed).
    func finish(_ pending: PendingAuthorization, consuming pendingIdHash: String?, client: ResolvedClient,
                identity: ConnectorIdentity, amr: [String], browser: BrowserContext, bound: Bool,
                throttleReset: PendingThrottleReset? = nil) async throws -> SignInCompletion {
        let completion = try await authorizations.complete(pending, consuming: pendingIdHash, client: client, identity: identity, amr: amr,
                                                           browserBound: bound, clientAddress: browser.clientAddress,
                                                           userAgent: browser.userAgent, throttleReset: throttleReset)
        return await remembered(completion, client: client, ssoToken: browser.ssoToken)
    }

    /// Stores a code for an existing session, without asking for consent.
    func finish(_ pending: PendingAuthorization, consuming pendingIdHash: String, existing session: LoginSession,
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
