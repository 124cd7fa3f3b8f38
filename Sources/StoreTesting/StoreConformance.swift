import StoreContracts
import Testing

/// The store conformance suite: the rules every store backend keeps, written once against the
/// store roles (``StoreRoles``) and run by each backend — SQLite, PostgreSQL and ``MemoryStore``
/// — from a test file of its own (docs/testing.md, "The store conformance suite").
///
/// Each check is a function given the roles of a new, empty store; it calls the roles the rule is
/// about (`roles.sessions.session(id:)`) and reports with Swift Testing's `#expect` and
/// `#require`. ``checks`` lists them all, each under a name that says the rule, for a
/// parameterized test, so the report names every check per backend:
///
/// ```swift
/// @Test(arguments: StoreConformance.checks)
/// func conforms(_ check: StoreCheck) async throws {
///     try await check.run { MemoryStore.open() }
/// }
/// ```
///
/// What only one backend has (SQLite's writer turns and WAL, PostgreSQL's migrations and several
/// instances on one database) is tested by that backend's own tests.
public enum StoreConformance {
    /// Opens a new, empty store and returns its roles.
    public typealias Opener = @Sendable () async throws -> StoreRoles

    /// Every check of the suite, by what it is about.
    public static let checks = [
        // pending authorizations and codes (StoreConformance+Authorizations.swift)
        StoreCheck("pending authorizations: insert, read, update, consume exactly once", pendingAuthorizations),
        StoreCheck("codes: 50 concurrent redemptions → exactly one winner; losers learn its family", concurrentRedemptions),
        StoreCheck("codes: read as stored, used or not, without being used up", codeLookup),
        StoreCheck("codes: the redeeming call stores its family and extends the session; a replay and an unknown code store nothing",
                   redemptionStartsFamily),
        StoreCheck("codes: 20 concurrent redemptions starting families: one family stored, every loser told which",
                   concurrentRedemptionsStartingFamilies),
        // finishing a sign-in in one write (+SignIn)
        StoreCheck("sign-in completion: consumes the pending authorization and stores session and code; a second completion stores nothing",
                   completesOnce),
        StoreCheck("sign-in completion: a failing insert leaves the pending authorization in place", completionIsAtomic),
        StoreCheck("sign-in completion: 20 concurrent completions of one sign-in: exactly one stores its session", concurrentCompletions),
        StoreCheck("sign-in completion: the throttle reset clears the username's failures and gives both places back, completed or not",
                   completionResetsThrottle),
        StoreCheck("sign-in completion: one that fails leaves the throttle's counters as they were", failedCompletionKeepsThrottle),
        StoreCheck("starting a session: the same rows as two writes, the session extended for the refresh token", startSessionWritesBoth),
        StoreCheck("starting a session: the throttle reset clears the username's failures and gives both places back", startSessionResetsThrottle),
        StoreCheck("starting a session: a family that cannot be stored takes the session and the reset with it", startSessionIsAtomic),
        // sessions (+Sessions)
        StoreCheck("sessions: round trip, compare-and-swap upstream update, revoke ends its families", sessionLifecycle),
        StoreCheck("sessions: live ones listed by auth service and by user (any case, or subject), newest first; revoked and expired left out",
                   liveSessionListing),
        StoreCheck("sessions: ending a user's, by subject, narrowed to upstream sessions (unknown ones included); families revoked; others untouched",
                   endSessionsBySubject),
        StoreCheck("sessions: ending by an upstream session key alone: the live ones with that key, whoever's; families revoked; keyless ones never",
                   endSessionsByUpstreamKey),
        StoreCheck("sessions: a refresh (rotation) and a new family with a refresh token note the session's last use; a failed rotation does not",
                   lastUse),
        StoreCheck("sessions: reuse noted; the account page's apps: unrevoked families of the sessions, oldest first", accountListing),
        // back-channel logout notices (+LogoutNotices)
        StoreCheck("logout notices: every way a session ends leaves one, once, naming the clients with families in it",
                   logoutNoticesOnSessionEnd),
        StoreCheck("logout notices: one holder at a time among 10, taken over when the claim runs out, retried when due, removed when done",
                   logoutNoticeClaims),
        // consents (+Consents)
        StoreCheck("consents: one per user and client, a new decision replaces the scopes and keeps the first date, listed newest first, removed once",
                   consentRecords),
        StoreCheck("permission requests: found by id, link and reference; one reference per client; 10 concurrent decisions, one wins",
                   permissionRequests),
        // token families (+Families)
        StoreCheck("families: rotation is compare-and-swap, the previous hash still finds the family", refreshRotation),
        StoreCheck("families: the DPoP key a family is bound to reads back by id, refresh token, rotation and access context",
                   dpopBinding),
        StoreCheck("per-app revocation: a session ends only when its last family is revoked; an instance's families everywhere",
                   perAppRevocation),
        // what validation reads, signing keys, load (+Tokens)
        StoreCheck("opaque tokens, single-token revocation and signing keys", tokensAndKeys),
        StoreCheck("access context: the family, its session and the token's own revocation in one read", accessContext),
        StoreCheck("access-context changes: every write that can end or change a context counts, others do not", accessContextChanges),
        StoreCheck("under load: 2,000 concurrent validate lookups, async reads and writes all complete", mixedLoad),
        // the throttle (+Throttle)
        StoreCheck("rate limit: a rule allows its limit, then one request per spacing", rateLimit),
        StoreCheck("login throttle: attempts in flight hold places and successes count nothing; failures lock, then one at a time per spacing",
                   reservations),
        StoreCheck("login throttle: rules in order, places before a refusal given back; an address keeps its failures when released",
                   reservationRules),
        StoreCheck("login throttle: a place never settled is forgotten after its hold; settling names the attempt by its date", reservationHold),
        StoreCheck("login throttle: 20 concurrent two-rule attempts at a limit of 5 hold exactly 5 places; 5 failures lock the rest out",
                   concurrentReservations),
        StoreCheck("throttle cap: capping the counters drops those used longest ago and keeps the one holding a guesser back", throttleCap),
        // registered app instances (+Clients)
        StoreCheck("registered instances: insert, read, list per environment, update, delete once", registeredClients),
        StoreCheck("registered instances: web origins are kept and looked up by origin, following updates, deletes and purges",
                   registeredClientWebOrigins),
        StoreCheck("registered instances: first sign-in binds; another user cannot take it; unbound ones expire", registeredClientBinding),
        // second factors (+SecondFactors)
        StoreCheck("authenticator app: enrol with codes in one write, each step accepted once by exactly one of 10 racers", authenticatorApp),
        StoreCheck("passkeys: a credential id registers once, the counter moves by compare-and-swap; list and reset by auth service and user",
                   passkeysAndReset),
        StoreCheck("account page: remove the authenticator app, remove and rename one passkey: only the owner's, other users' ids change nothing",
                   accountFactorChanges),
        // the smaller records (+Records)
        StoreCheck("one-time grants: inserted once, taken exactly once, even by 20 concurrent takers; expired ones are purged", oneTimeGrants),
        StoreCheck("QR sign-ins: round trip; of 10 concurrent settlements one wins; expired ones cannot be settled; purged a day after expiry",
                   qrLogins),
        StoreCheck("device authorizations: round trip by either code; a taken user code stores nothing; one of 10 settles, one of 10 redeems; "
                   + "expired ones neither; purged a day after expiry", deviceAuthorizations),
        StoreCheck("SSO records: saved, replaced, deleted, purged once expired", ssoRecords),
        StoreCheck("refresh leases: one holder at a time among 20, renewed by its holder, taken over once expired, released by its holder only",
                   refreshLeases),
        StoreCheck("connector documents: saved, read back, replaced only by a copy fetched later", connectorDocuments),
        // every table (+Storage)
        StoreCheck("keys: a row whose key is taken is refused, whatever the table, and leaves the stored one as it was", takenKeys),
        StoreCheck("sealed values page through every kind and replace only unchanged ciphertext", sealedValues),
        StoreCheck("garbage collection removes what expired and keeps what is live", purge),
        StoreCheck("garbage collection counts what it removed: codes and QR sign-ins a day late, sessions with their families",
                   purgeCounts),
    ]
}

/// One check of the suite: its name in the test report, and the function that runs it.
public struct StoreCheck: Sendable, CustomTestStringConvertible {
    public let name: String
    private let body: @Sendable (StoreRoles) async throws -> Void

    public init(_ name: String, _ body: @escaping @Sendable (StoreRoles) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs the check on a store `open` makes, and closes that store afterwards, also when the
    /// check failed.
    public func run(_ open: StoreConformance.Opener) async throws {
        let roles = try await open()
        do {
            try await body(roles)
        } catch {
            try? await roles.maintenance.close()
            throw error
        }
        try await roles.maintenance.close()
    }

    public var testDescription: String { name }
}
