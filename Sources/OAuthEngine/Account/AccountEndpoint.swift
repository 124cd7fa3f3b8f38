import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// The user's own account page (docs/account.md): `GET /account?client_id=C` shows the account
/// of the auth service `C` selects to the person signed in to it in this browser — where they
/// are signed in, which apps and devices hold their tokens, their second factors — and the form
/// posts end what they do not recognise. Without a sign-in the person signs in first through
/// the broker's own flow (`AccountSignIn`).
///
/// Every change is a POST whose `csrf_token` is bound to this browser's SSO cookie and session;
/// every row id a form names is looked up in the same user's listing again, so another user's
/// (or another auth service's) rows can be neither seen nor changed.
public struct AccountEndpoint: Sendable {
    let context: EngineContext
    let sessionStore: any SessionStore
    let codeStore: any AuthorizationCodeStore
    let familyStore: any TokenFamilyStore
    let instanceStore: any RegisteredClientStore
    let grantStore: any OneTimeGrantStore
    let mfaStore: any MFAStore
    let sso: SSOSessions
    let authorize: AuthorizeEndpoint
    let factors: SecondFactors
    let registration: RegistrationEndpoint

    /// How recent the sign-in must be to add or remove a second factor or make new recovery codes.
    public static let freshSignIn: TimeInterval = 300
    /// The most sessions the page lists (newest first).
    static let listingLimit = 200


    /// Where the broker's own sign-in comes back (never a client's redirect URI).
    public var callbackURL: String { Self.callbackURL(issuer: context.issuer) }

    static func callbackURL(issuer: String) -> String { "\(issuer)/account/callback" }

    /// The account page (or one of its pages, `path` under `/account`) for `clientId`.
    public func pageURL(_ clientId: String, path: String = "", _ extra: [(String, String?)] = []) -> String {
        RedirectURL.build("\(context.issuer)/account\(path)", [("client_id", clientId)] + extra)
    }

    /// `GET /account`: the page, or the sign-in first. `notice` names a fixed message
    /// (``notices``); `codes` is the handle of recovery codes to show once.
    public func show(_ request: AccountRequest, notice: String?, codes: String?) async -> AccountResult {
        await respond {
            let client = try resolve(request.clientId)
            guard let viewer = try await viewer(client, request) else {
                return await signIn(client, request, then: .account, reauthenticate: false)
            }
            let shown = try await takeRecoveryCodes(codes, viewer: viewer)
            return AccountResult(.page(try await model(viewer, notice: notice.flatMap { Self.notices[$0] }, codes: shown), status: 200))
        }
    }

    /// Fixed messages a redirect back to the page may name (`notice=`); nothing else is shown.
    static let notices = [
        "signed_in_again": "You signed in again: for the next 5 minutes you can add or remove second factors.",
        "passkey_added": "Passkey added.",
    ]

    // MARK: - Who is asking

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
            throw AccountAnswer(AccountResult(.redirect(pageURL(client.clientId))))
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
            throw AccountAnswer(await signIn(client, request, then: then, reauthenticate: false))
        }
        return viewer
    }

    /// Adding or removing a factor needs a sign-in within the last five minutes: otherwise the
    /// person signs in again first (and comes back to `then`).
    func requireFreshSignIn(_ viewer: AccountViewer, then: AccountFlow.Then) async throws {
        guard context.clock.now().timeIntervalSince(viewer.session.authTime) > Self.freshSignIn else { return }
        throw AccountAnswer(await signIn(viewer.client, viewer.request, then: then, reauthenticate: true, hint: viewer.session.userId))
    }

    /// The account page again with `error` (400): a row that is not the user's, input refused.
    func refuse(_ viewer: AccountViewer, _ error: String) async throws -> Never {
        throw AccountAnswer(AccountResult(.page(try await model(viewer, error: error), status: 400)))
    }

    /// The account page after an action, saying what it did.
    func done(_ viewer: AccountViewer, _ notice: String, codes: [String] = []) async throws -> AccountResult {
        AccountResult(.page(try await model(viewer, notice: notice, codes: codes), status: 200))
    }

    /// Runs one request: an ``AccountAnswer`` thrown on the way is the answer; OAuth errors are
    /// error pages; nothing else escapes.
    func respond(_ body: () async throws -> AccountResult) async -> AccountResult {
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

/// An answer decided on the way (a sign-in first, a refusal on the page), thrown to `respond`.
struct AccountAnswer: Error {
    let result: AccountResult
    init(_ result: AccountResult) { self.result = result }
}
