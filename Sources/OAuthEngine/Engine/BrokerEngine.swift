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
    /// The user's own account page (docs/account.md).
    public let account: AccountEndpoint
    /// Which browser origins may read which answers (CORS, docs/protocol.md, "Browser apps (CORS)").
    public let webOrigins: WebOriginPolicy

    public init(issuer: String, state: EngineState, store: any BrokerStore, clock: any BrokerClock, logger: Logger,
                metrics: any BrokerMetricsSink = NoMetrics(), audit: AuditTrail? = nil, throttle: LoginThrottle = LoginThrottle(),
                locator: (any AddressLocator)? = nil) {
        let live = LiveState(state)
        let audit = audit ?? AuditTrail(metrics: metrics, clock: clock)
        let context = EngineContext(issuer: issuer, store: store, clock: clock, logger: logger, metrics: metrics,
                                    audit: audit, live: live)
        self.context = context
        self.throttle = throttle
        let opened = BoundedCache<OpenedUpstreamKey, UpstreamToken>(capacity: 10_000)
        let verified = BoundedCache<SignedTokenKey, AccessTokenClaims>(capacity: 10_000)
        live.onChange { keysOnly in
            verified.removeAll()
            if !keysOnly { opened.removeAll() }
        }
        let clients = ClientRegistry(live: live, instances: store)
        let vault = UpstreamVault(live: live, metrics: metrics, opened: opened)
        let refresher = UpstreamRefresher(context: context, vault: vault, coordinator: RefreshCoordinator(),
                                          instanceId: Secrets.randomToken(bytes: 9))
        let binding = InstanceBinding(instances: store, clock: clock)
        let issuerService = TokenIssuer(context: context, upstream: vault, binding: binding)
        let keys = SigningKeyReloader(context: context, gate: KeyReloadGate(interval: 2))
        let verifier = TokenVerifier(context: context, clients: clients, keys: keys, verified: verified,
                                     contexts: AccessContextCache(), opaque: BoundedCache(capacity: 10_000))
        let rateLimiter = RateLimiter(live: live, counters: store, clock: clock)
        let checker = PasswordChecker(throttle: throttle, counters: store, clock: clock, metrics: metrics, audit: audit, logger: logger)
        let sso = SSOSessions(store: store, refresher: refresher, clock: clock, audit: audit, logger: logger)
        let webSSO = WebSSO(store: store, live: live, clock: clock, logger: logger)
        let revocationService = Revocation(context: context)
        let authorizations = PendingAuthorizations(context: context, clients: clients, rateLimiter: rateLimiter,
                                                   issuer: issuerService, binding: binding)
        let secondFactors = SecondFactors(context: context, throttle: throttle)
        let secondStep = SecondStepSignIn(context: context, authorizations: authorizations, factors: secondFactors, checker: checker)
        let upstreamSignIn = UpstreamSignIn(context: context, authorizations: authorizations, rateLimiter: rateLimiter,
                                            secondFactors: secondFactors, secondStep: secondStep)
        let validation = ValidationEndpoint(context: context, verifier: verifier, refresher: refresher, upstream: vault)
        let grants: [any TokenGrant] = [
            AuthorizationCodeGrant(codes: store, sessions: store, clients: clients, refresher: refresher, issuer: issuerService,
                                   revocation: revocationService, clock: clock, logger: logger,
                                   accountCallback: AccountEndpoint.callbackURL(issuer: issuer)),
            RefreshTokenGrant(families: store, sessions: store, clients: clients, refresher: refresher, issuer: issuerService,
                              revocation: revocationService, live: live, clock: clock),
            PasswordGrant(checker: checker, secondFactors: secondFactors, sessions: store, issuer: issuerService, audit: audit),
            ClientCredentialsGrant(sessions: store, families: store, refresher: refresher, issuer: issuerService, clock: clock),
        ]
        let tokens = TokenEndpoint(context: context, clients: clients, grants: grants, webSSO: webSSO)
        self.clients = clients
        webOrigins = WebOriginPolicy(live: live, clients: clients, instances: store)
        self.secondStep = secondStep
        self.authorizations = authorizations
        self.upstreamSignIn = upstreamSignIn
        self.sso = sso
        self.webSSO = webSSO
        self.signingKeys = keys
        self.tokens = tokens
        self.validation = validation
        let pushed = PushedAuthorizations(context: context, clients: clients, rateLimiter: rateLimiter)
        pushedAuthorizations = pushed
        authorize = AuthorizeEndpoint(context: context, clients: clients, authorizations: authorizations, upstream: upstreamSignIn,
                                      sso: sso, webSSO: webSSO, pushed: pushed, secondFactors: secondFactors, secondStep: secondStep)
        passwordSignIn = PasswordSignIn(context: context, authorizations: authorizations, checker: checker,
                                        secondFactors: secondFactors, secondStep: secondStep)
        introspection = IntrospectionEndpoint(context: context, clients: clients, validation: validation)
        revocation = RevocationEndpoint(context: context, clients: clients, verifier: verifier, revocation: revocationService)
        registration = RegistrationEndpoint(context: context, rateLimiter: rateLimiter, revocation: revocationService)
        account = AccountEndpoint(context: context, sso: sso, authorize: authorize, factors: secondFactors, registration: registration)
        let upstreamLogout = UpstreamLogout(context: context, vault: vault)
        logout = LogoutEndpoint(context: context, clients: clients, keys: keys, sso: sso, upstreamLogout: upstreamLogout)
        singleLogout = SingleLogoutEndpoint(context: context, upstreamLogout: upstreamLogout)
        connectorMetadata = ConnectorMetadata(context: context)
        discovery = DiscoveryEndpoint(context: context, grantTypes: tokens.grantTypes)
        qrBrowser = QRLoginBrowser(context: context, authorizations: authorizations, rateLimiter: rateLimiter, draining: draining)
        qrAPI = QRLoginAPI(context: context, verifier: verifier, clients: clients, locator: locator)
    }

    public var issuer: String { context.issuer }
    public var store: any BrokerStore { context.store }
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
