import IdentityCore

/// One backend's storage as its roles: what `SQLiteStore`, `PostgresStore` and `MemoryStore`
/// give the composition root (`BrokerEngine.init`), which wraps them once (the engine's
/// `GuardedStore`: a span per call, failures translated) and hands each engine part only the roles
/// it uses (docs/architecture.md, "Storage").
///
/// A backend may fill several roles with one object (a type conforming to many roles) or give
/// each role a type of its own sharing a connection owner; callers cannot tell.
public struct StoreRoles: Sendable {
    public var pending: any PendingAuthorizationStore
    public var codes: any AuthorizationCodeStore
    public var sessions: any SessionStore
    public var families: any TokenFamilyStore
    public var accessTokens: any AccessTokenStore
    public var signingKeys: any SigningKeyStore
    public var sso: any SSOStore
    public var sealed: any SealedValueStore
    public var leases: any RefreshLeaseStore
    public var registeredClients: any RegisteredClientStore
    public var oneTimeGrants: any OneTimeGrantStore
    public var throttle: any ThrottleStore
    public var qrLogins: any QRLoginStore
    public var devices: any DeviceAuthorizationStore
    public var mfa: any MFAStore
    public var connectorDocuments: any ConnectorDocumentStore
    /// Ended sessions waiting for back-channel logout delivery.
    public var logoutNotices: any LogoutNoticeStore
    /// What users allowed which apps (docs/consent.md).
    public var consents: any ConsentStore
    /// Back ends' permission requests (docs/consent.md).
    public var permissions: any PermissionStore
    public var maintenance: any MaintenanceStore

    public init(pending: any PendingAuthorizationStore, codes: any AuthorizationCodeStore, sessions: any SessionStore,
                families: any TokenFamilyStore, accessTokens: any AccessTokenStore, signingKeys: any SigningKeyStore,
                sso: any SSOStore, sealed: any SealedValueStore, leases: any RefreshLeaseStore,
                registeredClients: any RegisteredClientStore, oneTimeGrants: any OneTimeGrantStore, throttle: any ThrottleStore,
                qrLogins: any QRLoginStore, devices: any DeviceAuthorizationStore, mfa: any MFAStore, connectorDocuments: any ConnectorDocumentStore,
                logoutNotices: any LogoutNoticeStore, consents: any ConsentStore,
                permissions: any PermissionStore, maintenance: any MaintenanceStore) {
        self.pending = pending
        self.codes = codes
        self.sessions = sessions
        self.families = families
        self.accessTokens = accessTokens
        self.signingKeys = signingKeys
        self.sso = sso
        self.sealed = sealed
        self.leases = leases
        self.registeredClients = registeredClients
        self.oneTimeGrants = oneTimeGrants
        self.throttle = throttle
        self.qrLogins = qrLogins
        self.devices = devices
        self.mfa = mfa
        self.connectorDocuments = connectorDocuments
        self.logoutNotices = logoutNotices
        self.consents = consents
        self.permissions = permissions
        self.maintenance = maintenance
    }

    /// Every role filled by one object that plays them all.
    public init(all store: any BrokerStore) {
        self.init(pending: store, codes: store, sessions: store, families: store, accessTokens: store, signingKeys: store,
                  sso: store, sealed: store, leases: store, registeredClients: store, oneTimeGrants: store, throttle: store,
                  qrLogins: store, devices: store, mfa: store, connectorDocuments: store, logoutNotices: store, consents: store, permissions: store, maintenance: store)
    }
}
