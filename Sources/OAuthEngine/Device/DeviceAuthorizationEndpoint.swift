import Foundation
import IdentityCore
import StoreContracts

/// What `POST /oauth/device_authorization` answers (RFC 8628 §3.2).
public struct DeviceAuthorizationResponse: Sendable, Equatable {
    public var deviceCode: String
    /// As shown to people: `BCDF-GHJK`.
    public var userCode: String
    public var verificationURI: String
    /// The page with the code filled in, for a QR code on the device.
    public var verificationURIComplete: String
    public var expiresIn: Int
    public var interval: Int

    public var json: [String: JSONValue] {
        ["device_code": .string(deviceCode), "user_code": .string(userCode), "verification_uri": .string(verificationURI),
         "verification_uri_complete": .string(verificationURIComplete), "expires_in": .int(Int64(expiresIn)), "interval": .int(Int64(interval))]
    }
}

/// `POST /oauth/device_authorization` (RFC 8628 §3.1, docs/device-grant.md): a device that cannot
/// show a browser asks to sign a user in. The client authenticates as at the token endpoint (a
/// public client names itself); its auth service must allow the grant (`deviceGrant`).
public struct DeviceAuthorizationEndpoint: Sendable {
    let context: EngineContext
    let devices: any DeviceAuthorizationStore
    let clients: ClientRegistry
    let rateLimiter: RateLimiter

    /// The page people type the code on.
    public static func verificationURI(issuer: String) -> String { "\(issuer)/oauth/device" }

    public func authorize(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String?) async throws
        -> DeviceAuthorizationResponse {
        let state = context.state
        let authenticated = try await clients.authenticate(parameters, basic: basic, in: state)
        let client = authenticated.client
        guard client.instance == nil else {
            throw OAuthError.unauthorizedClient("App instances sign in in the app; the device grant is for configured clients.")
        }
        guard let settings = client.service.deviceGrant else {
            throw OAuthError.unauthorizedClient("This client may not use the device authorization grant (its auth service has no deviceGrant).")
        }
        // Each request stores something before anyone signed in (docs/security.md, rule 13).
        try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        let scope = Scopes.grant(parameters["scope"], extra: Scopes.extra(for: client))
        try client.apiResources.checkRequested(parameters["scope"])
        let resources = try client.apiResources.targets(parameters.resources, granted: scope)
        let now = context.clock.now()
        let deviceCode = Secrets.randomToken()
        // A user code already in use (one in 10¹⁰ per live code) is drawn again.
        for _ in 0..<4 {
            let userCode = UserCode.make()
            let record = DeviceAuthorization(
                deviceCodeHash: Secrets.hash(deviceCode), userCodeHash: UserCode.hash(userCode), clientId: client.clientId,
                clientAuthenticated: authenticated.authenticated, scope: scope, resources: resources, interval: settings.interval, createdAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(settings.lifetime)))
            guard try await devices.insertDeviceAuthorization(record) else { continue }
            let page = Self.verificationURI(issuer: context.issuer)
            return DeviceAuthorizationResponse(
                deviceCode: deviceCode, userCode: UserCode.display(userCode), verificationURI: page,
                verificationURIComplete: RedirectURL.build(page, [("user_code", userCode)]), expiresIn: settings.lifetime,
                interval: settings.interval)
        }
        throw OAuthError.internalFailure("no free user code after 4 draws")
    }
}
