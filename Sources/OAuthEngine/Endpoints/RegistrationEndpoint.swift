import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// The RFC 7591 / RFC 7592 answer describing an instance. The secrets appear only in the answer
/// to the registration itself (storage keeps their hashes).
public struct RegistrationResponse: Sendable, Encodable {
    public var client_id: String
    public var client_secret: String?
    public var registration_access_token: String?
    public var registration_client_uri: String
    public var client_id_issued_at: Int
    public var client_secret_expires_at: Int = 0
    public var software_id: String
    public var device_type: String
    public var redirect_uris: [String]
    public var grant_types: [String]
    public var response_types: [String]
    public var scope: String
    public var token_endpoint_auth_method = "client_secret_basic"
    /// Browser origins that may read this instance's answers (CORS), as registered; absent when none.
    public var web_origins: [String]?
    /// RFC 9449 §5.2: the instance's tokens are always DPoP-bound; absent when false.
    public var dpop_bound_access_tokens: Bool?
}

/// Dynamic registration of mobile app instances (RFC 7591, RFC 7592;
/// docs/protocol.md, "Mobile app instances").
public struct RegistrationEndpoint: Sendable {
    let context: EngineContext
    let instanceStore: any RegisteredClientStore
    let rateLimiter: RateLimiter
    let revocation: Revocation

    /// Device types an instance may declare (docs/protocol.md, "Mobile app instances").
    public static let deviceTypes: Set<String> = ["iphone", "ipad", "android", "android_tablet", "windows_phone"]
    /// `POST /oauth/register`: checks the initial access token, the body and its software statement,
    /// then stores a new instance of the environment the token belongs to. Rate-limited per client
    /// address and per initial access token (docs/security.md, rule 6): 429 with `Retry-After`
    /// beyond.
    public func register(body: [String: JSONValue], initialAccessToken: String?, clientAddress: String? = nil) async throws -> RegistrationResponse {
        let state = context.state
        try await rateLimiter.admit(.registration, clientAddress: clientAddress)
        guard let token = initialAccessToken, !token.isEmpty else {
            throw OAuthError.invalidToken("An initial access token is required (Authorization: Bearer).")
        }
        var matched: Environment?
        for environment in state.config.environments {
            for candidate in environment.registration?.initialAccessTokens ?? [] where Secrets.constantTimeEquals(candidate, token) {
                matched = environment
            }
        }
        guard let environment = matched, let registration = environment.registration else {
            throw OAuthError.invalidToken("The initial access token is not valid.")
        }
        try await rateLimiter.admit(.registrationWithToken(token), clientAddress: clientAddress)
        let softwareId = try field(body, "software_id")
        let statementJWT = try field(body, "software_statement")
        let deviceType = try field(body, "device_type")
        guard Self.deviceTypes.contains(deviceType) else {
            throw OAuthError(.invalidClientMetadata, "device_type must be one of iphone, ipad, android, android_tablet, windows_phone.")
        }
        guard softwareId.count <= 64, !softwareId.contains("~"), let trust = registration.softwareStatements[softwareId] else {
            throw OAuthError(.unapprovedSoftwareStatement, "This software_id is not approved for this environment.")
        }
        let now = context.clock.now()
        let statement = try SoftwareStatement.verify(statementJWT, trust: trust, softwareId: softwareId, now: now)
        let redirectURIs = try requestedRedirectURIs(body, allowed: statement.redirectURIs)
        let webOrigins = try requestedWebOrigins(body, allowed: statement.webOrigins)
        let dpopBound = try requestedDPoPBinding(body)
        let secret = Secrets.randomToken()
        let registrationToken = Secrets.randomToken()
        var instance = RegisteredClient(
            clientId: "dyn~\(softwareId)~\(UUID().uuidString.lowercased())", appKey: environment.appKey, softwareId: softwareId,
            deviceType: deviceType, redirectURIs: redirectURIs, scope: statement.scope, grantTypes: statement.grantTypes,
            secretHash: Secrets.hash(secret), registrationTokenHash: Secrets.hash(registrationToken), createdAt: now,
            webOrigins: webOrigins)
        instance.dpopBoundAccessTokens = dpopBound
        try await instanceStore.insertRegisteredClient(instance)
        context.audit.record(AuditEvent(.instanceRegistered, [
            "client": instance.clientId, "app_key": environment.appKey, "software_id": softwareId,
            "device": deviceType, "address": clientAddress]))
        var response = registrationResponse(instance)
        response.client_secret = secret
        response.registration_access_token = registrationToken
        return response
    }

    /// RFC 7592 read. The answer carries a new registration access token (RFC 7592 §3: the
    /// response includes one, and only its hash is stored), which replaces the presented one.
    public func read(clientId: String, registrationToken: String?) async throws -> RegistrationResponse {
        try await storeRotatingToken(try await managedInstance(clientId, registrationToken))
    }

    /// RFC 7592 update: an instance may change its device type and narrow its redirect URIs
    /// within its software statement's; omitted fields keep their values (RFC 7592 §2.2 lets the
    /// server ignore them). The answer carries a new registration access token.
    public func update(clientId: String, registrationToken: String?, body: [String: JSONValue]) async throws -> RegistrationResponse {
        var instance = try await managedInstance(clientId, registrationToken)
        if let claimed = body["client_id"], claimed.stringValue != clientId {
            throw OAuthError(.invalidClientMetadata, "client_id in the body must be the instance's own.")
        }
        if let secret = body["client_secret"],
           !Secrets.constantTimeEquals(Secrets.hash(secret.stringValue ?? ""), instance.secretHash) {
            throw OAuthError(.invalidClientMetadata, "client_secret in the body must be the instance's current secret.")
        }
        for field in ["registration_access_token", "registration_client_uri", "client_secret_expires_at", "client_id_issued_at"]
        where body[field] != nil {
            throw OAuthError(.invalidClientMetadata, "\(field) must not be sent in an update (RFC 7592 §2.2).")
        }
        if let deviceType = body["device_type"] {
            guard let text = deviceType.stringValue, Self.deviceTypes.contains(text) else {
                throw OAuthError(.invalidClientMetadata, "device_type must be one of iphone, ipad, android, android_tablet, windows_phone.")
            }
            instance.deviceType = text
        }
        if body["dpop_bound_access_tokens"] != nil { instance.dpopBoundAccessTokens = try requestedDPoPBinding(body) }
        if let environment = context.state.config.environments.first(where: { $0.appKey == instance.appKey }),
           let trust = environment.registration?.softwareStatements[instance.softwareId],
           let jwt = body["software_statement"]?.stringValue {
            let statement = try SoftwareStatement.verify(jwt, trust: trust, softwareId: instance.softwareId, now: context.clock.now())
            instance.redirectURIs = try requestedRedirectURIs(body, allowed: statement.redirectURIs)
            if body["web_origins"] != nil { instance.webOrigins = try requestedWebOrigins(body, allowed: statement.webOrigins) }
        } else {
            if body["redirect_uris"] != nil {
                instance.redirectURIs = try requestedRedirectURIs(body, allowed: instance.redirectURIs)
            }
            if body["web_origins"] != nil {
                instance.webOrigins = try requestedWebOrigins(body, allowed: (instance.webOrigins ?? []).filter { $0 != WebOrigins.ofRedirectURIs })
            }
        }
        return try await storeRotatingToken(instance)
    }

    /// Stores `instance` with a new registration access token in place of the current one
    /// (compare-and-swap on the old hash) and answers with the new token.
    private func storeRotatingToken(_ instance: RegisteredClient) async throws -> RegistrationResponse {
        var changed = instance
        let token = Secrets.randomToken()
        changed.registrationTokenHash = Secrets.hash(token)
        let updated = try await instanceStore.updateRegisteredClient(changed, expectedTokenHash: instance.registrationTokenHash)
        guard updated else { throw OAuthError.invalidToken("The registration access token is not valid.") }
        var response = registrationResponse(changed)
        response.registration_access_token = token
        return response
    }

    /// RFC 7592 delete: removes the instance and revokes every token it holds.
    public func delete(clientId: String, registrationToken: String?) async throws {
        let instance = try await managedInstance(clientId, registrationToken)
        try await revokeInstance(instance)
    }

    /// Removes an instance and revokes its token families (DELETE, `idconnect clients revoke`, and
    /// the user removing the device on the account page); its session ends too unless another app
    /// still holds a family in it. `by` is who asked (`client`, `user`), for the audit trail.
    public func revokeInstance(_ instance: RegisteredClient, by: String = "client") async throws {
        try await revocation.revokeFamilies(ofClient: instance.clientId, at: context.clock.now(), reason: .instanceDeleted)
        _ = try await instanceStore.deleteRegisteredClient(id: instance.clientId)
        context.audit.record(AuditEvent(.instanceDeleted, ["client": instance.clientId, "app_key": instance.appKey, "by": by]))
    }

    /// Removes instances nobody signed in to within an hour of their registration (maintenance).
    public func purgeUnboundInstances() async throws -> Int {
        try await instanceStore.purgeUnboundRegisteredClients(
            registeredBefore: context.clock.now().addingTimeInterval(-InstanceBinding.unboundInstanceLifetime))
    }

    private func managedInstance(_ clientId: String, _ registrationToken: String?) async throws -> RegisteredClient {
        guard let registrationToken, !registrationToken.isEmpty else {
            throw OAuthError.invalidToken("The registration access token is required (Authorization: Bearer).")
        }
        let instance = try await instanceStore.registeredClient(id: clientId)
        guard let instance, Secrets.constantTimeEquals(Secrets.hash(registrationToken), instance.registrationTokenHash) else {
            throw OAuthError.invalidToken("The registration access token is not valid.")
        }
        return instance
    }

    private func registrationResponse(_ instance: RegisteredClient) -> RegistrationResponse {
        let encoded = instance.clientId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? instance.clientId
        return RegistrationResponse(
            client_id: instance.clientId, registration_client_uri: "\(context.issuer)/oauth/register/\(encoded)",
            client_id_issued_at: Int(instance.createdAt.timeIntervalSince1970), software_id: instance.softwareId,
            device_type: instance.deviceType, redirect_uris: instance.redirectURIs, grant_types: instance.grantTypes,
            response_types: instance.grantTypes.contains("authorization_code") ? ["code"] : [], scope: instance.scope,
            web_origins: instance.webOrigins, dpop_bound_access_tokens: instance.dpopBoundAccessTokens == true ? true : nil)
    }

    /// The body's `dpop_bound_access_tokens` (RFC 9449 §5.2): true, or nil for false and absent.
    private func requestedDPoPBinding(_ body: [String: JSONValue]) throws -> Bool? {
        switch body["dpop_bound_access_tokens"] {
        case nil, .bool(false)?: return nil
        case .bool(true)?: return true
        default: throw OAuthError(.invalidClientMetadata, "dpop_bound_access_tokens must be true or false.")
        }
    }

    private func field(_ body: [String: JSONValue], _ name: String) throws -> String {
        guard let value = body[name]?.stringValue, !value.isEmpty, value.utf8.count <= 16_384 else {
            throw OAuthError(.invalidClientMetadata, "'\(name)' is required and must be a string.")
        }
        return value
    }

    /// The body's `web_origins` (nil when absent), normalized: `+` (the origins of the instance's
    /// http(s) redirect URIs) and exact origins, each one of `allowed` (the software statement's
    /// `web_origins`, or on an update without a statement the instance's own); no wildcards.
    private func requestedWebOrigins(_ body: [String: JSONValue], allowed: [String]) throws -> [String]? {
        guard let value = body["web_origins"] else { return nil }
        guard case .array(let items) = value, items.count <= 32 else {
            throw OAuthError(.invalidClientMetadata, "web_origins must be an array of at most 32 origins.")
        }
        return try items.map { item in
            guard let entry = item.stringValue else { throw OAuthError(.invalidClientMetadata, "web_origins must hold strings.") }
            if entry == WebOrigins.ofRedirectURIs { return entry }
            switch WebOrigins.normalized(entry) {
            case .failure(let problem):
                throw OAuthError(.invalidClientMetadata, "web_origins: \(problem.reason).")
            case .success(let origin):
                guard allowed.contains(origin) else {
                    throw OAuthError(.invalidClientMetadata, "web_origins: '\(origin)' is not an origin the software statement allows "
                                     + "(its web_origins claim); '+' stands for the origins of the redirect URIs.")
                }
                return origin
            }
        }
    }

    /// The body's `redirect_uris` (default: all allowed); each must be one the statement allows.
    private func requestedRedirectURIs(_ body: [String: JSONValue], allowed: [String]) throws -> [String] {
        guard let value = body["redirect_uris"] else { return allowed }
        guard case .array(let items) = value, !items.isEmpty else {
            throw OAuthError(.invalidRedirectURI, "redirect_uris must be a non-empty array.")
        }
        return try items.map { item in
            guard let uri = item.stringValue, RedirectURL.isRegistered(uri, in: allowed) else {
                throw OAuthError(.invalidRedirectURI, "Every redirect URI must be one the software statement allows.")
            }
            return uri
        }
    }
}
