import Foundation
import IdentityConfig
import IdentityCore
import PageLanguages
import StoreContracts

/// Who is asking on the account page, and how its answers are made (docs/account.md): the
/// browser's sign-in at the auth service the page was opened for, the form token bound to it,
/// a fresh sign-in where a change needs one, and the page again saying what happened. Every part
/// of the page (``AccountEndpoint``, ``AccountSessionActions``, ``AccountAuthenticator``,
/// ``AccountPasskeys``) goes through it.
struct AccountAccess: Sendable {
    let context: EngineContext
    let sso: SSOSessions
    let factors: SecondFactors
    let listing: AccountListing
    let signIns: AccountSignIn

    var urls: AccountURLs { AccountURLs(issuer: context.issuer) }

    /// The auth service's client as the page was opened (configured clients only: an app
    /// instance's id selects nothing here).
    func resolve(_ clientId: String?) throws -> ResolvedClient {
        guard let clientId else {
            throw OAuthError.invalidRequest("The parameter 'client_id' is required: it says which sign-in's account to show.")
        }
        guard let client = context.state.directory.resolve(clientId) else { throw OAuthError(.invalidClient, "Unknown client.", status: 400) }
        return client
    }

    /// The browser's most recent sign-in at `client`'s auth service that needs no second factor
    /// any more; nil when it has none (the person signs in first).
    func viewer(_ client: ResolvedClient, _ request: AccountRequest) async throws -> AccountViewer? {
        guard let token = request.ssoToken else { return nil }
        let sessions = await sso.sessions(for: client, ssoToken: token)
        for session in sessions {
            let owner = SecondFactors.owner(userId: session.userId, client: client)
            guard try await factors.need(owner, client: client, amr: session.amr) == .none else { continue }
            return AccountViewer(client: client, session: session, browserSessions: Set(sessions.map(\.id)),
                                 csrfToken: Self.formToken(sessionId: session.id, ssoToken: token), request: request)
        }
        return nil
    }

    /// The form token of the account page: bound to the session shown and to this browser's SSO
    /// cookie (HttpOnly), so only a page served to this browser can carry it.
    static func formToken(sessionId: String, ssoToken: String) -> String {
        Secrets.hash("account\u{0}\(sessionId)\u{0}\(ssoToken)")
    }

    /// The viewer a form post acts for. No sign-in any more: back to the page (which signs in).
    /// A form token that does not match: refused with an error page, nothing changed.
    func acting(_ request: AccountRequest, csrfToken: String?) async throws -> AccountViewer {
        let client = try resolve(request.clientId)
        guard let viewer = try await viewer(client, request) else {
            throw AccountAnswer(AccountResult(.redirect(urls.page(client.clientId))))
        }
        guard let csrfToken, csrfToken.utf8.count <= 128, Secrets.constantTimeEquals(csrfToken, viewer.csrfToken) else {
            throw OAuthError.invalidRequest("The form is no longer valid. Reload the account page and try again.")
        }
        return viewer
    }

    /// A page that needs a sign-in (the setup pages): the viewer, or the sign-in first.
    func viewing(_ request: AccountRequest, then: AccountFlow.Then) async throws -> AccountViewer {
        let client = try resolve(request.clientId)
        guard let viewer = try await viewer(client, request) else {
            throw AccountAnswer(await signIns.signIn(client, request, then: then, reauthenticate: false))
        }
        return viewer
    }

    /// Whether `viewer` signed in within the last five minutes (``AccountEndpoint/freshSignIn``).
    func signedInRecently(_ viewer: AccountViewer) -> Bool {
        context.clock.now().timeIntervalSince(viewer.session.authTime) <= AccountEndpoint.freshSignIn
    }

    /// Adding or removing a factor needs a sign-in within the last five minutes: otherwise the
    /// person signs in again first (and comes back to `then`).
    func requireFreshSignIn(_ viewer: AccountViewer, then: AccountFlow.Then) async throws {
        guard !signedInRecently(viewer) else { return }
        throw AccountAnswer(await signIns.signIn(viewer.client, viewer.request, then: then, reauthenticate: true, hint: viewer.session.userId))
    }

    /// The account page again with `error` (400): a row that is not the user's, input refused.
    func refuse(_ viewer: AccountViewer, _ error: PageText) async throws -> Never {
        throw AccountAnswer(AccountResult(.page(try await listing.model(viewer, error: error), status: 400)))
    }

    /// The account page after an action, saying what it did.
    func done(_ viewer: AccountViewer, _ notice: PageText, codes: [String] = []) async throws -> AccountResult {
        AccountResult(.page(try await listing.model(viewer, notice: notice, codes: codes), status: 200))
    }

    /// An audit event of the account page, with who and from where.
    func record(_ name: AuditEvent.Name, _ viewer: AccountViewer, _ fields: [String: String?] = [:]) {
        var all: [String: String?] = [
            "auth_service": viewer.client.service.id, "client": viewer.client.clientId, "user": viewer.session.userId,
            "address": viewer.request.clientAddress, "by": "user",
        ]
        for (key, value) in fields { all[key] = value }
        context.audit.record(AuditEvent(name, all))
    }
}

/// The account page's addresses under the issuer.
public struct AccountURLs: Sendable {
    public let issuer: String

    /// Where the broker's own sign-in comes back (never a client's redirect URI).
    public var callback: String { "\(issuer)/account/callback" }

    /// The account page (or one of its pages, `path` under `/account`) for `clientId`.
    public func page(_ clientId: String, path: String = "", _ extra: [(String, String?)] = []) -> String {
        RedirectURL.build("\(issuer)/account\(path)", [("client_id", clientId)] + extra)
    }
}

extension AccountResult {
    /// Runs one account request: an ``AccountAnswer`` thrown on the way is the answer; OAuth
    /// errors are error pages; nothing else escapes.
    static func answering(_ body: () async throws -> AccountResult) async -> AccountResult {
        do {
            return try await body()
        } catch let answer as AccountAnswer {
            return answer.result
        } catch let error as OAuthError {
            return AccountResult(.errorPage(error))
        } catch let failure as AuthorizationFailure {
            return AccountResult(.errorPage(failure.error))
        } catch {
            return AccountResult(.errorPage(.wrapping(error, "account page")))
        }
    }
}

/// Who the account page is shown to: the browser's sign-in at the auth service, and the form token.
struct AccountViewer: Sendable {
    let client: ResolvedClient
    let session: LoginSession
    /// The sessions this browser's SSO cookie holds for the auth service ("this browser").
    let browserSessions: Set<String>
    let csrfToken: String
    let request: AccountRequest

    var owner: MFAOwner { SecondFactors.owner(userId: session.userId, client: client) }
}

/// An answer decided on the way (a sign-in first, a refusal on the page), thrown to
/// ``AccountResult/answering(_:)``.
struct AccountAnswer: Error {
    let result: AccountResult
    init(_ result: AccountResult) { self.result = result }
}
