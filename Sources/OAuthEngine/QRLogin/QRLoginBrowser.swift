import Foundation
import IdentityConfig
import IdentityCore
import PageLanguages
import StoreContracts

/// What the login page shows for a QR sign-in.
public struct QRLoginDisplay: Sendable, Equatable {
    /// The code (a UUID): not a secret — anyone near the screen can read it.
    public var code: String
    /// What the QR symbol encodes: `{qrUrl}?code={code}`.
    public var payload: String
    public var expiresAt: Date
    public var ttl: Int
    public var heading: PageText
    public var look: PageLook
    /// Long-polled by the page; answers the state for the showing browser only.
    public var statusURL: String
    /// Where the page goes once the app answered (and the no-script "continue" link).
    public var finishURL: String
    /// A fresh code for the same sign-in.
    public var restartURL: String
    /// The password form of the same sign-in (`/oauth/authenticate/{id}`), for a person who opened
    /// the QR view on the phone that would have to scan it; nil where the sign-in's id is not at
    /// hand (a new code after one expired: the browser's Back button still leads there).
    public var passwordURL: String?
}

/// The state of a QR sign-in as its browser sees it.
public enum QRLoginState: String, Sendable {
    case pending, confirmed, refused, expired
    /// Unknown code, or another browser asking.
    case unknown
}

/// What finishing a QR sign-in in the browser comes to.
public enum QRLoginFinish: Sendable {
    /// Confirmed: back to the client with a code, as a password sign-in would.
    case finished(BrowserSignInResult)
    /// Not answered yet: show the code again.
    case pending(QRLoginDisplay)
    /// Refused by the app: an error page offering `back` (the client's redirect with `access_denied`).
    case refused(back: ClientAnswer)
    /// Timed out: offer a fresh code.
    case expired(restart: String)
}

/// The browser's half of QR-code login (docs/qr-login.md): the login page asks for a code, waits
/// for the app's answer, and finishes the sign-in. Every step requires the binding cookie of the
/// browser that started the sign-in: the code on screen never completes anything by itself.
public struct QRLoginBrowser: Sendable {
    let context: EngineContext
    let pendingStore: any PendingAuthorizationStore
    let sessionStore: any SessionStore
    let qrStore: any QRLoginStore
    let authorizations: PendingAuthorizations
    let signIns: BrowserSignIn
    let rateLimiter: RateLimiter
    /// Ends the long poll early when the broker shuts down.
    let draining: Draining

    /// How long one status request waits for an answer before saying "still pending".
    public static let longPoll: Duration = .seconds(20)
    static let pollInterval: Duration = .milliseconds(400)

    /// A new code for pending authorization `pendingId`, shown by the browser holding
    /// `browserBinding`. The browser's User-Agent, language and address are kept for the app's
    /// confirmation screen.
    public func start(pendingId: String, browserBinding: String?, userAgent: String?, acceptLanguage: String?,
                      clientAddress: String?) async throws(AuthorizationFailure) -> QRLoginDisplay {
        guard pendingId.utf8.count <= 128 else { throw Self.unknown }
        var display = try await start(pendingIdHash: Secrets.hash(pendingId), browserBinding: browserBinding, userAgent: userAgent,
                                      acceptLanguage: acceptLanguage, clientAddress: clientAddress)
        display.passwordURL = "\(context.issuer)/oauth/authenticate/\(pendingId)"
        return display
    }

    /// A fresh code for the sign-in an expired one belonged to (same browser only).
    public func restart(code: String, browserBinding: String?, userAgent: String?, acceptLanguage: String?,
                        clientAddress: String?) async throws(AuthorizationFailure) -> QRLoginDisplay {
        guard let previous = await owned(code, browserBinding) else { throw Self.unknown }
        return try await start(pendingIdHash: previous.pendingIdHash, browserBinding: browserBinding, userAgent: userAgent,
                               acceptLanguage: acceptLanguage, clientAddress: clientAddress)
    }

    static let unknown = AuthorizationFailure.cannotRedirect(.invalidRequest("Unknown or expired sign-in; start again from the app."))

    private func start(pendingIdHash: String, browserBinding: String?, userAgent: String?, acceptLanguage: String?,
                       clientAddress: String?) async throws(AuthorizationFailure) -> QRLoginDisplay {
        let (pending, client, settings) = try await qrPending(pendingIdHash, browserBinding)
        do {
            // Every code is a stored row: counted like the authorization requests that store one.
            try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        } catch {
            throw .cannotRedirect(.wrapping(error, "rate limit"))
        }
        let code = UUID().uuidString.lowercased()
        let now = context.clock.now()
        let login = QRLogin(
            codeHash: Self.hash(code), pendingIdHash: pendingIdHash, browserHash: pending.browserHash ?? "",
            clientId: client.clientId, appKey: client.appKey, authServiceId: client.service.id,
            userAgent: String(decoding: (userAgent ?? "").utf8.prefix(1024), as: UTF8.self),
            acceptLanguage: acceptLanguage.map { String(decoding: $0.utf8.prefix(256), as: UTF8.self) },
            clientAddress: clientAddress, createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(settings.ttl)))
        do {
            try await qrStore.insertQRLogin(login)
        } catch {
            throw .cannotRedirect(.wrapping(error, "QR sign-in"))
        }
        return display(code: code, login: login, client: client, settings: settings, uiLocales: pending.uiLocales)
    }

    /// The sign-in's state for the browser holding `browserBinding`, waiting up to `longPoll`
    /// while it is pending (polling storage, so the app may answer on another instance).
    public func state(code: String, browserBinding: String?, wait: Duration = QRLoginBrowser.longPoll) async -> QRLoginState {
        let deadline = ContinuousClock.now.advanced(by: wait)
        while true {
            let state = await currentState(code: code, browserBinding: browserBinding)
            guard state == .pending, ContinuousClock.now < deadline, !Task.isCancelled, !draining.isDraining else { return state }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    /// Finishes the sign-in in the browser that showed the code.
    public func finish(code: String, browser: BrowserContext) async throws(AuthorizationFailure) -> QRLoginFinish {
        guard let login = await owned(code, browser.binding),
              let pending = try? await pendingStore.pending(idHash: login.pendingIdHash),
              let client = try? await authorizations.client(for: pending), let settings = client.service.qrLogin else {
            throw Self.unknown
        }
        let target = ErrorRedirect(pending, issuer: context.issuer)
        let now = context.clock.now()
        switch login.state {
        case .refused:
            _ = try? await pendingStore.consumePending(idHash: login.pendingIdHash)
            return .refused(back: target.answer(for: .accessDenied("The sign-in was refused in the app.")))
        case .pending where now >= login.expiresAt:
            return .expired(restart: restartURL(code))
        case .pending:
            return .pending(display(code: code, login: login, client: client, settings: settings, uiLocales: pending.uiLocales))
        case .confirmed:
            guard let sessionId = login.sessionId,
                  let session = try? await sessionStore.session(id: sessionId), session.isActive(at: now),
                  session.subject == login.subject else {
                throw .redirect(.accessDenied("The app's sign-in has ended; sign in again."), target)
            }
            do {
                let result = try await signIns.complete(pending, consuming: login.pendingIdHash, existing: session,
                                                        client: client, browser: browser)
                context.audit.record(AuditEvent(.signInSucceeded, [
                    "connector": client.service.provider.type, "auth_service": client.service.id, "client": client.clientId,
                    "address": login.clientAddress, "user": session.userId, "subject": session.subject,
                    "session": session.id, "method": "qr"]))
                return .finished(result)
            } catch let failure as AuthorizationFailure {
                throw failure
            } catch let error as OAuthError {
                throw .redirect(error, target)
            } catch {
                throw .redirect(.wrapping(error, "QR sign-in completion"), target)
            }
        }
    }

    /// Codes are stored under this hash (a UUID is short; the prefix keeps it apart from other hashes).
    static func hash(_ code: String) -> String { Secrets.hash("qr\u{0}" + code) }

    /// Whether `code` has the shape the broker gives out (a lowercase UUID).
    static func isWellFormed(_ code: String) -> Bool {
        code.utf8.count == 36 && UUID(uuidString: code) != nil
    }

    private func currentState(code: String, browserBinding: String?) async -> QRLoginState {
        guard let login = await owned(code, browserBinding) else { return .unknown }
        switch login.state {
        case .confirmed: return .confirmed
        case .refused: return .refused
        case .pending: return context.clock.now() < login.expiresAt ? .pending : .expired
        }
    }

    /// The stored sign-in of `code` when `browserBinding` is the cookie of the browser showing it.
    private func owned(_ code: String, _ browserBinding: String?) async -> QRLogin? {
        guard Self.isWellFormed(code), let browserBinding,
              let login = try? await qrStore.qrLogin(codeHash: Self.hash(code)),
              Secrets.constantTimeEquals(Secrets.hash(browserBinding), login.browserHash) else { return nil }
        return login
    }

    private func qrPending(_ pendingIdHash: String, _ browserBinding: String?) async throws(AuthorizationFailure)
        -> (PendingAuthorization, ResolvedClient, QRLoginSettings) {
        guard let pending = try? await pendingStore.pending(idHash: pendingIdHash), context.clock.now() < pending.expiresAt,
              pending.mode == .browser, PendingAuthorizations.isStartingBrowser(pending, browserBinding),
              let client = try? await authorizations.client(for: pending) else { throw Self.unknown }
        guard let settings = client.service.qrLogin else {
            throw .cannotRedirect(.invalidRequest("QR-code sign-in is not enabled for this app."))
        }
        return (pending, client, settings)
    }

    private func display(code: String, login: QRLogin, client: ResolvedClient, settings: QRLoginSettings,
                         uiLocales: String?) -> QRLoginDisplay {
        let base = settings.qrURL?.absoluteString ?? "\(context.issuer)/oauth/qr"
        return QRLoginDisplay(
            code: code, payload: RedirectURL.build(base, [("code", code)]), expiresAt: login.expiresAt, ttl: settings.ttl,
            heading: client.service.name.map(PageText.init(verbatim:)) ?? PageText("Sign in"), look: client.look.reading(uiLocales),
            statusURL: RedirectURL.build("\(context.issuer)/oauth/qr/status", [("code", code)]),
            finishURL: RedirectURL.build("\(context.issuer)/oauth/qr/finish", [("code", code)]),
            restartURL: restartURL(code))
    }

    private func restartURL(_ code: String) -> String {
        RedirectURL.build("\(context.issuer)/oauth/qr/restart", [("code", code)])
    }
}
