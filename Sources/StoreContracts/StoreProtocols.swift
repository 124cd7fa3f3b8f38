import Foundation
import IdentityCore

/// Authorizations between `/oauth/auth` and the sign-in.
public protocol PendingAuthorizationStore: Sendable {
    func insertPending(_ pending: PendingAuthorization, idHash: String) async throws
    func pending(idHash: String) async throws -> PendingAuthorization?
    func updatePending(_ pending: PendingAuthorization, idHash: String) async throws
    /// Removes it; returns false when it was already gone (so exactly one caller finishes it).
    func consumePending(idHash: String) async throws -> Bool
}

/// Authorization codes: single use, atomically.
public protocol AuthorizationCodeStore: Sendable {
    func insertCode(_ code: AuthorizationCode) async throws
    /// The code as stored, used or not, without touching it: the token endpoint checks the client,
    /// the redirect URI and PKCE first, so that a failed attempt does not burn the code.
    func code(hash: String) async throws -> AuthorizationCode?
    /// Marks the code used and records `familyId` as the family its tokens will belong to, in one
    /// step; exactly one concurrent caller sees `.redeemed`, the others get that family id back.
    func redeemCode(hash: String, at date: Date, familyId: String) async throws -> CodeRedemption
    /// `redeemCode(hash:at:familyId:)` with `family.id`, and, when this call is the one that
    /// redeems the code, `family` stored in the same transaction (as `insertFamily` stores it): one
    /// write per code exchange instead of two. A code already used or unknown stores nothing.
    func redeemCode(hash: String, at date: Date, starting family: TokenFamily) async throws -> CodeRedemption
}

/// Sign-in sessions and their sealed upstream tokens.
public protocol SessionStore: Sendable {
    func insertSession(_ session: LoginSession) async throws
    /// Finishes a sign-in in one transaction: removes the pending authorization (when
    /// `pendingIdHash` is given), stores the session and its first authorization code. Returns
    /// false, storing nothing, when the pending authorization was already gone — so exactly one
    /// of two concurrent completions of one sign-in wins. One write instead of three per login.
    ///
    /// `throttleReset` is the login throttle's bookkeeping of the correct password that led here
    /// (`ThrottleStore.throttleSucceeded`), done in the same transaction whether or not the
    /// pending authorization was still there: the password was right either way.
    func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?,
                        throttleReset: ThrottleReset?) async throws -> Bool
    /// Starts a sign-in that hands out tokens at once (the password grant) in one transaction:
    /// `session` with its first token family, stored as `insertSession` and then `insertFamily`
    /// would store them (the session extended for the family's refresh token,
    /// ``LoginSession/extended(for:)``), and the throttle's `throttleReset` as in
    /// `completeSignIn`. One write instead of three per password grant.
    func startSession(_ session: LoginSession, family: TokenFamily, throttleReset: ThrottleReset?) async throws
    func session(id: String) async throws -> LoginSession?
    /// Ends the session and every family in it.
    func revokeSession(id: String, at date: Date) async throws
    /// Sessions live at `now` (not revoked, not expired), newest first, at most `limit`: for
    /// operators (`idconnect sessions list|revoke`). `authServiceId` narrows to one auth service;
    /// `user` to one user, matched against the user id without regard to case, or the subject.
    func liveSessions(authServiceId: String?, user: String?, at now: Date, limit: Int) async throws -> [LoginSession]
    /// Notes that the sign-in was used again (SSO reuse) for the account page. Refreshes note it
    /// within `rotateRefresh`.
    func touchSession(id: String, at date: Date) async throws
    /// Ends, in one transaction, every live session of `subject` (one user of one auth service)
    /// and every family in them; with `upstreamSessionKeys`, only sessions whose
    /// ``LoginSession/upstreamSessionKey`` is one of them or unknown (nil). Returns the ids of the
    /// sessions it ended: the identity source ended those sign-ins (SAML single logout).
    func endSessions(subject: String, upstreamSessionKeys: [String]?, at date: Date) async throws -> [String]
    /// Ends, in one transaction, every live session whose ``LoginSession/upstreamSessionKey`` is
    /// `upstreamSessionKey`, whoever's it is, and every family in them; returns their ids: the
    /// identity source ended that sign-in of its own (an OpenID provider's back-channel logout
    /// naming only its `sid`). Sessions without a key are never matched.
    func endSessions(upstreamSessionKey: String, at date: Date) async throws -> [String]
    /// Replaces the upstream token if `expectedVersion` still matches; returns whether it did.
    func updateUpstream(sessionId: String, sealedUpstream: Data?, upstreamExpiresAt: Date?,
                        attributes: [String: JSONValue]?, expectedVersion: Int) async throws -> Bool
}

/// Token families and refresh-token rotation.
public protocol TokenFamilyStore: Sendable {
    func insertFamily(_ family: TokenFamily) async throws
    func family(id: String) async throws -> TokenFamily?
    /// The family a refresh token belongs to, and whether the token is its current one, the one
    /// rotated away last (grace period), or an older one (reuse: revoke the family).
    func family(refreshHash: String) async throws -> (TokenFamily, RefreshTokenMatch)?
    /// Compare-and-swap rotation: succeeds only if `oldHash` is still current. A success also
    /// notes the session's last use (`LoginSession.lastUsedAt` = `date`) in the same write, so
    /// the account page sees refreshes at no extra cost; so does `insertFamily` with a refresh token.
    func rotateRefresh(familyId: String, from oldHash: String, to newHash: String, expiresAt: Date,
                       graceResponse: Data?, at date: Date) async throws -> Bool
    /// The unrevoked families of these sessions, oldest first (the account page's apps).
    func unrevokedFamilies(sessionIds: [String]) async throws -> [TokenFamily]
    /// Revokes the family; returns false when no family has that id (yet).
    @discardableResult
    func revokeFamily(id: String, at date: Date) async throws -> Bool
    /// Revokes every family of `clientId` (an app instance signing out or deleted); returns the
    /// sessions they were in.
    func revokeFamilies(clientId: String, at date: Date) async throws -> [String]
    /// Ends the session (and drops its sealed upstream token) when no family in it is live any
    /// more, in one statement; returns whether it ended it. Live: not revoked, and either its
    /// refresh token is unexpired or it issued an access token after `issuedAfter` (one that may
    /// still be valid). Called after revoking one app's family, so the other apps signed in
    /// through the same session keep theirs.
    func endSessionIfUnused(id: String, at date: Date, issuedAfter: Date) async throws -> Bool
}

/// Opaque access tokens and single access-token revocations.
public protocol AccessTokenStore: Sendable {
    /// Everything validation needs about an access token in one round trip.
    func accessContext(familyId: String, jti: String) async throws -> AccessContext?
    func insertOpaqueToken(_ token: OpaqueAccessToken) async throws
    func opaqueToken(hash: String) async throws -> OpaqueAccessToken?
    func revokeAccessToken(jti: String, expiresAt: Date) async throws
    func isAccessTokenRevoked(jti: String) async throws -> Bool
    /// How many writes this store object has made that can end or change an access context
    /// (revoking a token, family or session, ending sessions, a new upstream token). Validation
    /// memoizes access contexts for a moment (`AccessContextCache`) and drops what was read before
    /// the count last moved, so a revocation on this instance is seen at once.
    var accessContextChanges: UInt64 { get }
}

/// Token signing keys.
public protocol SigningKeyStore: Sendable {
    func signingKeys() async throws -> [StoredSigningKey]
    func insertSigningKey(_ key: StoredSigningKey) async throws
    func retireSigningKey(kid: String, at date: Date, removeAfter: Date) async throws
}

/// Browser SSO sessions (the `idc_sso` cookie), stored under the cookie's hash.
public protocol SSOStore: Sendable {
    func ssoRecord(hash: String) async throws -> SSORecord?
    func saveSSORecord(_ record: SSORecord, hash: String) async throws
    func deleteSSORecord(hash: String) async throws
}

/// Leases that let exactly one broker instance refresh a session's upstream token at a time
/// (docs/operations.md, "Several instances on one database": a lease row with an expiry, no
/// advisory locks).
public protocol RefreshLeaseStore: Sendable {
    /// Takes the lease of `sessionId` for `holder` until `until`, unless another holder's lease
    /// is still unexpired at `now`. Returns whether `holder` has it.
    func acquireRefreshLease(sessionId: String, holder: String, until: Date, now: Date) async throws -> Bool
    /// Gives the lease back (only if `holder` still has it).
    func releaseRefreshLease(sessionId: String, holder: String) async throws
}

/// Every value the vault sealed, page by page, for `idconnect vault rotate`.
public protocol SealedValueStore: Sendable {
    func sealedValues(_ kind: SealedValue.Kind, after cursor: String?, limit: Int) async throws -> [SealedValue]
    /// Replaces the ciphertext only if the row still holds `value.data` (a concurrent update wins).
    func replaceSealed(_ value: SealedValue, with sealed: Data) async throws -> Bool
}

/// Dynamically registered mobile app instances (docs/protocol.md, "Mobile app instances"). Kept
/// small so every backend can implement it with plain row operations.
public protocol RegisteredClientStore: Sendable {
    func insertRegisteredClient(_ client: RegisteredClient) async throws
    func registeredClient(id: String) async throws -> RegisteredClient?
    /// Every instance of one environment, oldest first (for `idconnect clients list`).
    func registeredClients(appKey: String) async throws -> [RegisteredClient]
    /// The instances bound to a user (the account page's devices), oldest first.
    func registeredClients(boundTo subject: String) async throws -> [RegisteredClient]
    /// Stores `client`'s metadata (`RegisteredClient.applyingMetadata(of:)`) onto the instance
    /// with the same `clientId`, if its registration token hash is still `expectedTokenHash`
    /// (compare-and-swap: of two updates with one token, one wins). False when gone or changed.
    func updateRegisteredClient(_ client: RegisteredClient, expectedTokenHash: String) async throws -> Bool
    /// Binds the instance to `subject` and its session. Succeeds when it is unbound or already bound
    /// to the same subject (a re-sign-in moves it to the new session); false otherwise.
    func bindRegisteredClient(id: String, subject: String, sessionId: String, at date: Date) async throws -> Bool
    /// Forgets the instance's session (it signed out): `client_credentials` has nothing to
    /// re-login to until the next sign-in binds one again. The bound user stays.
    func unbindRegisteredClientSession(id: String) async throws
    /// Removes the instance; returns false when it was already gone.
    func deleteRegisteredClient(id: String) async throws -> Bool
    /// Removes instances registered before `date` that no user has signed in to; returns how many.
    func purgeUnboundRegisteredClients(registeredBefore date: Date) async throws -> Int
    /// Whether any instance lists `origin` (exact, normalized) among its ``RegisteredClient/allowedWebOrigins``:
    /// a CORS preflight, which names no client, is answered for such origins. An indexed lookup,
    /// kept in step by insert, update, delete and purge.
    func registeredClientListsWebOrigin(_ origin: String) async throws -> Bool
}

/// Short-lived single-use values (the app-to-web SSO `css` value,
/// docs/protocol.md, "App-to-web SSO"): stored under the value's hash with a sealed payload; taking
/// one removes it, so exactly one caller gets it.
public protocol OneTimeGrantStore: Sendable {
    func insertOneTimeGrant(hash: String, sealed: Data, expiresAt: Date) async throws
    /// Inserts unless a grant with that hash exists; returns whether it inserted (replay caches).
    func insertOneTimeGrantIfAbsent(hash: String, sealed: Data, expiresAt: Date) async throws -> Bool
    /// Removes the grant and returns its payload; nil when it is absent or was already taken.
    func takeOneTimeGrant(hash: String) async throws -> (sealed: Data, expiresAt: Date)?
}

extension SessionStore {
    /// A completion with no throttle bookkeeping (SSO, QR login, tests).
    public func completeSignIn(session: LoginSession, code: AuthorizationCode, consumingPending pendingIdHash: String?) async throws -> Bool {
        try await completeSignIn(session: session, code: code, consumingPending: pendingIdHash, throttleReset: nil)
    }
}

/// Health and housekeeping.
public protocol MaintenanceStore: Sendable {
    /// Cheap round trip to the database, for `/readyz`.
    func ping() async throws
    /// Deletes what expired before `date`; returns how many rows went.
    func purgeExpired(before date: Date) async throws -> Int
    func close() async throws
}

/// The storage cannot be reached right now (a shared database is down or overloaded): callers
/// answer 503 `temporarily_unavailable` rather than 500, and a retry later may succeed.
public protocol StorageUnavailable: Error {}

/// Everything the broker stores. Each backend implements all roles; code depends on the roles it uses.
public typealias BrokerStore = PendingAuthorizationStore & AuthorizationCodeStore & SessionStore
    & TokenFamilyStore & AccessTokenStore & SigningKeyStore & SSOStore & SealedValueStore & RefreshLeaseStore
    & RegisteredClientStore & OneTimeGrantStore & ThrottleStore & QRLoginStore & DeviceAuthorizationStore & MFAStore & ConnectorDocumentStore & LogoutNoticeStore
    & ConsentStore & PermissionStore & MaintenanceStore
