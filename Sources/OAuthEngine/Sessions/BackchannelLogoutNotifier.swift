import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// Sends a relying party's back-channel logout endpoint a logout token: the HTTP half, which
/// the app provides (`HTTPLogoutTokenDelivery`), so the engine is tested without a socket.
public protocol LogoutTokenDelivering: Sendable {
    /// POSTs `logoutToken` as the form field `logout_token` to `uri`. Returns when the relying
    /// party took it (HTTP 200 or 204); throws, saying why, when it did not or did not answer.
    func deliver(logoutToken: String, to uri: URL) async throws
}

/// Tells relying parties that a sign-in in which they got tokens ended (OpenID Connect
/// Back-Channel Logout 1.0; docs/protocol.md, "Back-channel logout to relying parties").
///
/// Storage queues a ``LogoutNotice`` whenever a session ends, whatever ended it. Each instance
/// calls ``deliverDue(limit:)`` about once a second: it claims the notices that are due, and for
/// every client that got tokens in the session and whose auth service has a
/// `backchannelLogoutUri`, POSTs a logout token signed with the broker's key — `sub` and `sid`
/// as that client's ID tokens carried them. A client that did not take it is tried again after
/// each of ``retryDelays`` (those told are not told twice); every failure is audited
/// (`backchannel_logout.failed`), the last with `final: true`.
public struct BackchannelLogoutNotifier: Sendable {
    let context: EngineContext
    let notices: any LogoutNoticeStore
    let delivery: any LogoutTokenDelivering
    /// This instance's name on the notices it claims.
    let holder: String

    /// The wait before each further attempt; after the last the broker gives up on the client.
    public static let retryDelays: [TimeInterval] = [5, 30, 120, 600, 3600]
    /// How long a claim keeps other instances off a notice: longer than one round's deliveries.
    static let claimDuration: TimeInterval = 60
    /// How many notices one round claims at most.
    public static let roundSize = 20
    /// A logout token's lifetime (`exp` after `iat`).
    static let tokenLifetime: TimeInterval = 120
    /// The event a logout token carries (section 2.4).
    public static let event = "http://schemas.openid.net/event/backchannel-logout"

    public init(context: EngineContext, notices: any LogoutNoticeStore, delivery: any LogoutTokenDelivering,
                holder: String = Secrets.randomToken(bytes: 9)) {
        self.context = context
        self.notices = notices
        self.delivery = delivery
        self.holder = holder
    }

    /// What one round did.
    public struct Round: Sendable, Equatable {
        /// Notices claimed.
        public var notices = 0
        /// Logout tokens relying parties took.
        public var delivered = 0
        /// Logout tokens that were not taken.
        public var failed = 0

        public init(notices: Int = 0, delivered: Int = 0, failed: Int = 0) {
            self.notices = notices
            self.delivered = delivered
            self.failed = failed
        }
    }

    /// Claims at most `limit` due notices and delivers them, all at once. Throws only when the
    /// notices cannot be claimed (storage unreachable); a round that claimed nothing does no other work.
    @discardableResult
    public func deliverDue(limit: Int = BackchannelLogoutNotifier.roundSize) async throws -> Round {
        let now = context.clock.now()
        let due = try await notices.claimLogoutNotices(holder: holder, until: now.addingTimeInterval(Self.claimDuration),
                                                       now: now, limit: limit)
        guard !due.isEmpty else { return Round() }
        let state = context.state
        return await withTaskGroup(of: Round.self) { group in
            for notice in due {
                group.addTask { await deliver(notice, state: state, now: now) }
            }
            var total = Round(notices: due.count)
            for await round in group {
                total.delivered += round.delivered
                total.failed += round.failed
            }
            return total
        }
    }

    /// Delivers one notice to the clients not told yet, then settles it: removed when every one
    /// took it (or nobody is to be told), else due again after the next of ``retryDelays``.
    private func deliver(_ notice: LogoutNotice, state: EngineState, now: Date) async -> Round {
        var told = notice.delivered
        var round = Round()
        var failures: [(client: String, reason: String)] = []
        for clientId in notice.clientIds where !told.contains(clientId) {
            guard let uri = Self.backchannelURI(of: clientId, in: state.directory) else { continue }
            do {
                let token = try logoutToken(notice, audience: clientId, keys: state.keys, now: now)
                try await delivery.deliver(logoutToken: token, to: uri)
                told.append(clientId)
                round.delivered += 1
            } catch {
                failures.append((clientId, "\(error)"))
                round.failed += 1
            }
        }
        let retryAt = failures.isEmpty || notice.attempts >= Self.retryDelays.count
            ? nil : now.addingTimeInterval(Self.retryDelays[notice.attempts])
        for failure in failures {
            context.audit.record(.backchannelLogoutFailed(client: failure.client, session: notice.sessionId, attempt: notice.attempts + 1,
                                                          reason: failure.reason, final: retryAt == nil))
        }
        if round.delivered > 0 {
            context.logger.info("relying parties told of an ended sign-in",
                                metadata: ["session": "\(notice.sessionId)", "clients": "\(round.delivered)"])
        }
        do {
            try await notices.settleLogoutNotice(sessionId: notice.sessionId, holder: holder, delivered: told, retryAt: retryAt)
        } catch {
            // The claim runs out and the notice is claimed again: those told may be told twice,
            // which relying parties must accept (section 2.7).
            context.logger.warning("back-channel logout notice not settled",
                                   metadata: ["session": "\(notice.sessionId)", "error": "\(error)"])
        }
        return round
    }

    /// Where `clientId` hears of logouts: its auth service's `backchannelLogoutUri`. Registered
    /// app instances (`dyn~` ids, mobile apps) have no back channel.
    static func backchannelURI(of clientId: String, in directory: ClientDirectory) -> URL? {
        guard let client = directory.resolve(clientId), client.instance == nil else { return nil }
        return client.service.backchannelLogoutURI
    }

    /// The logout token for `audience` (section 2.4): `typ` `logout+jwt`, the session's `sub` and
    /// `sid` as its ID tokens carry them, the logout event, a fresh `jti`, no `nonce`.
    func logoutToken(_ notice: LogoutNotice, audience: String, keys: SigningKeyRing, now: Date) throws -> String {
        let claims: [String: JSONValue] = [
            "iss": .string(context.issuer), "aud": .string(audience), "iat": .int(now.epochSeconds),
            "exp": .int(now.addingTimeInterval(Self.tokenLifetime).epochSeconds), "jti": .string(Secrets.randomToken(bytes: 16)),
            "sub": .string(notice.subject), "sid": .string(notice.sessionId), "events": .object([Self.event: .object([:])]),
        ]
        return try keys.sign(Data(JSONValue.serialize(object: claims)), type: "logout+jwt")
    }
}
