import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4, docs/device-grant.md):
/// the device polls with its device code. Until the user finished it hears
/// `authorization_pending` (or `slow_down` when it polled sooner than its interval, which then grows
/// by 5 seconds), then `access_denied` or its tokens — once: the approval is redeemed in one
/// statement, so of two polls one wins — and after the code's lifetime `expired_token`.
struct DeviceCodeGrant: TokenGrant {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    let devices: any DeviceAuthorizationStore
    let clients: ClientRegistry
    let refresher: UpstreamRefresher
    let issuer: TokenIssuer
    let clock: any BrokerClock

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        guard authenticated.client.service.deviceGrant != nil else {
            throw OAuthError.unauthorizedClient("This client may not use the device authorization grant (its auth service has no deviceGrant).")
        }
        let value = try parameters.require("device_code")
        let hash = Secrets.hash(value)
        guard value.utf8.count <= 256, let device = try await devices.deviceAuthorization(deviceCodeHash: hash) else {
            throw OAuthError.invalidGrant("The device code is invalid.")
        }
        guard let deviceClient = try await clients.resolve(device.clientId), deviceClient.isSameClient(as: authenticated.client) else {
            throw OAuthError.invalidGrant("The device code was issued to another client.")
        }
        guard authenticated.authenticated || !device.clientAuthenticated else {
            throw OAuthError.invalidClient("This device code was asked for with the client's secret: poll with it too.")
        }
        let now = clock.now()
        guard now < device.expiresAt else { throw OAuthError(.expiredToken, "The device code has expired; start again on the device.") }
        switch device.state {
        case .pending:
            try await pending(device, hash: hash, now: now)
        case .denied:
            throw OAuthError.accessDenied("The user did not allow this device to sign in.")
        case .redeemed:
            throw OAuthError.invalidGrant("The device code was already used.")
        case .approved:
            break
        }
        // The session is checked (and its upstream sign-in brought up to date) before the approval
        // is spent: an identity source that is down for a moment leaves it for the next poll.
        let session = try await refresher.liveSession(device.sessionId, client: authenticated.client, now: now)
        guard try await devices.redeemDeviceAuthorization(deviceCodeHash: hash, at: now) else {
            throw OAuthError.invalidGrant("The device code was already used.")
        }
        return try await issuer.issueNewFamily(session: session, client: authenticated, scope: device.scope, nonce: nil,
                                               familyId: Secrets.randomToken(bytes: 24), resources: device.resources, keys: keys)
    }

    /// The user has not finished: notes the poll and answers `authorization_pending`, or
    /// `slow_down` (and a longer interval) when the device came back too soon.
    private func pending(_ device: DeviceAuthorization, hash: String, now: Date) async throws -> Never {
        let tooSoon = device.polledAt.map { now.timeIntervalSince($0) < TimeInterval(device.interval) } ?? false
        let interval = tooSoon ? device.interval + 5 : device.interval
        try await devices.noteDevicePoll(deviceCodeHash: hash, at: now, interval: interval)
        if tooSoon {
            throw OAuthError(.slowDown, "Polling too often: wait \(interval) seconds between requests.")
        }
        throw OAuthError(.authorizationPending, "The user has not finished signing in yet.")
    }
}
