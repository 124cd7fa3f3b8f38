import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import Logging
import StoreContracts

/// The OAuth engine with no HTTP in sight: it wires the endpoints, grants and services
/// together once, and controllers call the endpoints. Each part holds only what it uses; the
/// reloadable state (configuration, clients, keys, vault) is shared through ``LiveState``.
public final class BrokerEngine: Sendable {
    public let context: EngineContext
    public let clients: ClientRegistry
    public let authorize: AuthorizeEndpoint
    public let authorizations: PendingAuthorizations
    public let passwordSignIn: PasswordSignIn
    public let upstreamSignIn: UpstreamSignIn
    public let tokens: TokenEndpoint
    public let validation: ValidationEndpoint
    public let introspection: IntrospectionEndpoint
    public let revocation: RevocationEndpoint
    public let registration: RegistrationEndpoint
    public let logout: LogoutEndpoint
    /// `/saml/slo`: identity-provider logout requests and answers (SAML single logout).
    public let singleLogout: SingleLogoutEndpoint
    /// `/oauth/backchannel-logout/{client}`: OpenID providers' logout tokens.
    public let backchannelLogout: BackchannelLogoutEndpoint
    /// IdP metadata of the connectors that fetch it (SAML `idpMetadataUrl`).
    public let connectorMetadata: ConnectorMetadata
    public let discovery: DiscoveryEndpoint
    public let sso: SSOSessions
    public let webSSO: WebSSO
    public let signingKeys: SigningKeyReloader
    public let throttle: LoginThrottle
    public let pushedAuthorizations: PushedAuthorizations
    public let qrBrowser: QRLoginBrowser
    /// Set when graceful shutdown begins: waiting requests answer at once.
    public let draining = Draining()
    public let qrAPI: QRLoginAPI
    /// The second step of browser sign-ins: challenges, second factors, enrolment (docs/mfa.md).
    public let secondStep: SecondStepSignIn
    /// The consent screen (docs/consent.md).
    public let consentScreen: ConsentScreen
    /// Back ends' permission requests (docs/consent.md).
    public let permissions: PermissionRequests
    /// The user's own account page (docs/account.md).
    public let account: AccountEndpoint
    /// `POST /oauth/device_authorization` and the device page (docs/device-grant.md).
    public let deviceAuthorization: DeviceAuthorizationEndpoint
    public let deviceVerification: DeviceVerification
    /// DPoP proofs, bindings and nonces (docs/dpop.md).
    public let dpop: DPoPGate
    /// Which browser origins may read which answers (CORS, docs/protocol.md, "Browser apps (CORS)").
    public let webOrigins: WebOriginPolicy
    /// Back-channel logout to relying parties: delivers the notices of ended sessions (nil when
    /// the engine was built without a way to deliver them, as in tests of other parts).
    public let logoutNotifier: BackchannelLogoutNotifier?

    /// Storage as its roles (``StoreRoles``): this initializer — the composition root — is the only
    /// code that sees all of them; each part receives the roles it uses.
    public let storage: StoreRoles

    public init(issuer: String, state: EngineState, storage: StoreRoles, clock: any BrokerClock, logger: Logger,
                metrics: any BrokerMetricsSink = NoMetrics(), audit: AuditTrail? = nil, throttle: LoginThrottle = LoginThrottle(),
                locator: (any AddressLocator)? = nil, clientKeys: (any ClientKeyFetching)? = nil,
                logoutDelivery: (any LogoutTokenDelivering)? = nil, permissionDelivery: (any PermissionNotifying)? = nil) {
        let live = LiveState(state)
        let audit = audit ?? AuditTrail(metrics: metrics, clock: clock)
        let context = EngineContext(issuer: issuer, clock: clock, logger: logger, metrics: metrics, audit: audit, live: live)
        self.context = context
        self.storage = storage
        let roles = storage
        self.throttle = throttle
        let opened = BoundedCache<OpenedUpstreamKey, UpstreamToken>(capacity: 10_000)
        let verified = BoundedCache<SignedTokenKey, AccessTokenClaims>(capacity: 10_000)
        let contexts = AccessContextCache()
        live.onChange { keysOnly in
            verified.removeAll()
            if !keysOnly {
                opened.removeAll()
                contexts.removeAll()
            }
        }
        let assertions = ClientAssertions(issuer: issuer, clock: clock, replay: roles.oneTimeGrants,
                                          keySets: ClientKeySets(fetcher: clientKeys, clock: clock))
        let clients = ClientRegistry(live: live, instances: roles.registeredClients, assertions: assertions)
        let vault = UpstreamVault(live: live, metrics: metrics, opened: opened)
        let refresher = UpstreamRefresher(context: context, sessionStore: roles.sessions, leaseStore: roles.leases, vault: vault,
                                          coordinator: RefreshCoordinator(),
                                          instanceId: Secrets.randomToken(bytes: 9))
        let binding = InstanceBinding(instances: roles.registeredClients, clock: clock)
        let issuerService = TokenIssuer(context: context, sessionStore: roles.sessions, familyStore: roles.families,
                                        accessTokenStore: roles.accessTokens, upstream: vault, binding: binding)
        let keys = SigningKeyReloader(context: context, keyStore: roles.signingKeys, gate: KeyReloadGate(interval: 2))
        let dpop = DPoPGate(context: context, replay: roles.oneTimeGrants)
        let verifier = TokenVerifier(context: context, accessTokenStore: roles.accessTokens, clients: clients, keys: keys, verified: verified,
                                     contexts: contexts, opaque: BoundedCache(capacity: 10_000), dpop: dpop)
        let rateLimiter = RateLimiter(live: live, counters: roles.throttle, clock: clock)
        let checker = PasswordChecker(throttle: throttle, counters: roles.throttle, clock: clock, metrics: metrics, audit: audit, logger: logger)
        let sso = SSOSessions(records: roles.sso, sessionStore: roles.sessions, refresher: refresher, clock: clock, audit: audit, logger: logger)
        let webSSO = WebSSO(grants: roles.oneTimeGrants, instances: roles.registeredClients, sessionStore: roles.sessions,
                            live: live, clock: clock, logger: logger)
        let revocationService = Revocation(context: context, sessionStore: roles.sessions, familyStore: roles.families)
        let authorizations = PendingAuthorizations(context: context, pendingStore: roles.pending, codeStore: roles.codes,
                                                   sessionStore: roles.sessions, clients: clients, rateLimiter: rateLimiter,
                                                   issuer: issuerService, binding: binding)
        let consentGate = ConsentGate(context: context, pendingStore: roles.pending, consentStore: roles.consents)
        let signIns = BrowserSignIn(authorizations: authorizations, sso: sso, consent: consentGate)
        let secondFactors = SecondFactors(context: context, mfaStore: roles.mfa, grantStore: roles.oneTimeGrants,
                                          throttleStore: roles.throttle, throttle: throttle)
        let secondStep = SecondStepSignIn(context: context, pendingStore: roles.pending, sessionStore: roles.sessions, mfaStore: roles.mfa,
                                          authorizations: authorizations, signIns: signIns, factors: secondFactors, checker: checker)
        let upstreamSignIn = UpstreamSignIn(context: context, pendingStore: roles.pending, grantStore: roles.oneTimeGrants,
                                            authorizations: authorizations, signIns: signIns, rateLimiter: rateLimiter,
                                            secondFactors: secondFactors, secondStep: secondStep)
        let validation = ValidationEndpoint(context: context, verifier: verifier, refresher: refresher, upstream: vault)
        let grants: [any TokenGrant] = [
            AuthorizationCodeGrant(codes: roles.codes, clients: clients, refresher: refresher, issuer: issuerService,
                                   revocation: revocationService, clock: clock, logger: logger,
                                   ownCallbacks: [AccountURLs(issuer: issuer).callback, DeviceVerification.callbackURI(issuer: issuer)]),
            RefreshTokenGrant(families: roles.families, sessions: roles.sessions, clients: clients, refresher: refresher, issuer: issuerService,
                              revocation: revocationService, live: live, clock: clock),
            PasswordGrant(checker: checker, secondFactors: secondFactors, sessions: roles.sessions, issuer: issuerService, audit: audit),
            ClientCredentialsGrant(sessions: roles.sessions, families: roles.families, refresher: refresher, issuer: issuerService, clock: clock),
            TokenExchangeGrant(context: context, verifier: verifier, validation: validation, families: roles.families, sessions: roles.sessions,
                               issuer: issuerService, secondFactors: secondFactors, rateLimiter: rateLimiter, refresher: refresher),
            DeviceCodeGrant(devices: roles.devices, clients: clients, refresher: refresher, issuer: issuerService,
                            clock: clock),
        ]
        let tokens = TokenEndpoint(context: context, clients: clients, grants: grants, webSSO: webSSO, dpop: dpop)
        self.clients = clients
        self.dpop = dpop
        webOrigins = WebOriginPolicy(live: live, clients: clients, instances: roles.registeredClients)
        self.secondStep = secondStep
        let permissionNotifications = PermissionNotifications(context: context, permissionStore: roles.permissions,
                                                              delivery: permissionDelivery)
        consentScreen = ConsentScreen(context: context, pendingStore: roles.pending, consentStore: roles.consents, sessionStore: roles.sessions,
                                      authorizations: authorizations, signIns: signIns, permissionStore: roles.permissions,
                                      permissions: permissionNotifications)
        let permissions = PermissionRequests(context: context, permissionStore: roles.permissions, clients: clients, rateLimiter: rateLimiter,
                                             notifications: permissionNotifications)
        self.permissions = permissions
        self.authorizations = authorizations
        self.upstreamSignIn = upstreamSignIn
        self.sso = sso
        self.webSSO = webSSO
        self.signingKeys = keys
        self.tokens = tokens
        self.validation = validation
        let requestObjects = RequestObjects(issuer: issuer, clock: clock, clients: clients, assertions: assertions)
        let pushed = PushedAuthorizations(context: context, grantStore: roles.oneTimeGrants, clients: clients, rateLimiter: rateLimiter,
                                          dpop: dpop, requestObjects: requestObjects)
        pushedAuthorizations = pushed
        authorize = AuthorizeEndpoint(context: context, sessionStore: roles.sessions, clients: clients, authorizations: authorizations, upstream: upstreamSignIn,
                                      sso: sso, webSSO: webSSO, pushed: pushed, requestObjects: requestObjects, secondFactors: secondFactors,
                                      secondStep: secondStep, consent: consentGate, permissions: permissions)
        passwordSignIn = PasswordSignIn(context: context, pendingStore: roles.pending, authorizations: authorizations, signIns: signIns,
                                        checker: checker,
                                        secondFactors: secondFactors, secondStep: secondStep)
        introspection = IntrospectionEndpoint(context: context, sessionStore: roles.sessions, familyStore: roles.families, clients: clients, validation: validation)
        revocation = RevocationEndpoint(context: context, familyStore: roles.families, accessTokenStore: roles.accessTokens,
                                        instanceStore: roles.registeredClients, clients: clients, verifier: verifier, revocation: revocationService)
        registration = RegistrationEndpoint(context: context, instanceStore: roles.registeredClients, rateLimiter: rateLimiter, revocation: revocationService)
        account = AccountEndpoint(context: context, sessionStore: roles.sessions, codeStore: roles.codes, familyStore: roles.families,
                                  instanceStore: roles.registeredClients, grantStore: roles.oneTimeGrants, mfaStore: roles.mfa,
                                  consentStore: roles.consents, permissions: permissionNotifications, sso: sso,
                                  authorize: authorize, factors: secondFactors, registration: registration)
        let upstreamLogout = UpstreamLogout(context: context, grantStore: roles.oneTimeGrants, vault: vault)
        logout = LogoutEndpoint(context: context, sessionStore: roles.sessions, clients: clients, keys: keys, sso: sso, upstreamLogout: upstreamLogout)
        singleLogout = SingleLogoutEndpoint(context: context, sessionStore: roles.sessions, grantStore: roles.oneTimeGrants,
                                            upstreamLogout: upstreamLogout)
        logoutNotifier = logoutDelivery.map { BackchannelLogoutNotifier(context: context, notices: roles.logoutNotices, delivery: $0) }
        backchannelLogout = BackchannelLogoutEndpoint(context: context, sessionStore: roles.sessions, grantStore: roles.oneTimeGrants)
        connectorMetadata = ConnectorMetadata(context: context, documentStore: roles.connectorDocuments)
        discovery = DiscoveryEndpoint(context: context, grantTypes: tokens.grantTypes)
        qrBrowser = QRLoginBrowser(context: context, pendingStore: roles.pending, sessionStore: roles.sessions, qrStore: roles.qrLogins,
                                   authorizations: authorizations, signIns: signIns, rateLimiter: rateLimiter, draining: draining)
        deviceAuthorization = DeviceAuthorizationEndpoint(context: context, devices: roles.devices, clients: clients, rateLimiter: rateLimiter)
        deviceVerification = DeviceVerification(context: context, devices: roles.devices, clients: clients, rateLimiter: rateLimiter,
                                                authorize: authorize, sso: sso,
                                                own: OwnSignIn(context: context, codeStore: roles.codes, sessionStore: roles.sessions))
        qrAPI = QRLoginAPI(context: context, qrStore: roles.qrLogins, verifier: verifier, clients: clients, locator: locator)
    }

    public var issuer: String { context.issuer }
    public var clock: any BrokerClock { context.clock }
    public var logger: Logger { context.logger }
    public var audit: AuditTrail { context.audit }
    /// A consistent snapshot of the reloadable state for one request.
    public var state: EngineState { context.state }
    /// The vault of the current configuration: the first key seals, all open.
    public var vault: Vault { context.vault }

    /// Swaps in a new configuration or key ring; requests in flight keep their snapshot.
    public func replaceState(_ state: EngineState) { context.live.replace(state) }
    public func updateKeys(_ keys: SigningKeyRing) { context.live.updateKeys(keys) }
}
