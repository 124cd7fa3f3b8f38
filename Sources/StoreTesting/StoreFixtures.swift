import Foundation
import IdentityCore
import StoreContracts

/// The records the conformance checks store, for backend tests too: one fixed moment and
/// records around it, so that every backend is given the same rows.
public enum StoreFixtures {
    /// The moment every fixture is relative to.
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A session of `alice` at auth service `svc` (subject `sub-<id>`) with a sealed upstream
    /// token, ending `expires` seconds after ``now``.
    public static func session(_ id: String, expires: TimeInterval = 3600) -> LoginSession {
        LoginSession(id: id, subject: "sub-\(id)", userId: "alice", appKey: "kid", authServiceId: "svc",
                     attributes: ["email": .string("a@example.org"), "groups": .array([.string("g")])],
                     sealedUpstream: Data([1, 2, 3]), upstreamExpiresAt: now.addingTimeInterval(60),
                     authTime: now, createdAt: now, expiresAt: now.addingTimeInterval(expires))
    }

    /// A family of client `kid` in `session`; with a refresh token (its hash `refresh`) valid for two hours.
    public static func family(_ id: String, session: String, refresh: String?) -> TokenFamily {
        TokenFamily(id: id, sessionId: session, clientId: "kid", scope: "openid", nonce: "n", createdAt: now,
                    refreshHash: refresh, refreshExpiresAt: refresh.map { _ in now.addingTimeInterval(7200) })
    }

    /// An API-mode authorization of client `kid`, valid for a minute.
    public static func pending() -> PendingAuthorization {
        PendingAuthorization(clientId: "kid", appKey: "kid", authServiceId: "svc", redirectURI: "https://a/cb",
                             scope: "openid", state: "s", nonce: nil, codeChallenge: "c", mode: .api,
                             browserHash: nil, createdAt: now, expiresAt: now.addingTimeInterval(60))
    }

    /// A code of client `kid` for `session`, valid for a minute.
    public static func code(_ hash: String, session: String) -> AuthorizationCode {
        AuthorizationCode(hash: hash, clientId: "kid", redirectURI: "https://a/cb", scope: "openid", nonce: nil,
                          codeChallenge: "c", sessionId: session, createdAt: now, expiresAt: now.addingTimeInterval(60))
    }

    /// A throttle rule on the hash of `key`: `limit` per five minutes, then one per minute.
    public static func rule(_ key: String, limit: Int) -> ThrottleRule {
        ThrottleRule(keyHash: Secrets.hash(key), limit: limit, window: 300, spacing: 60)
    }

    /// How many more attempts `rule` lets be in flight at `date` (each one reserved, at most 20).
    public static func places(_ throttle: any ThrottleStore, _ rule: ThrottleRule, at date: Date = now) async throws -> Int {
        var count = 0
        while count < 20, try await throttle.throttleReserve([rule], at: date) == .reserved { count += 1 }
        return count
    }

    /// A registered app instance of environment `appKey`, registered `created` seconds after ``now``.
    public static func instance(_ id: String, appKey: String = "kid", created: TimeInterval = 0) -> RegisteredClient {
        RegisteredClient(clientId: id, appKey: appKey, softwareId: "CSI", deviceType: "iphone",
                         redirectURIs: ["com.example.app:/cb"], scope: "openid native",
                         grantTypes: ["authorization_code", "client_credentials"],
                         secretHash: Secrets.hash("secret-\(id)"), registrationTokenHash: Secrets.hash("rat-\(id)"),
                         createdAt: now.addingTimeInterval(created))
    }

    /// The owner of second factors of `user` at auth service `service`.
    public static func owner(_ user: String, service: String = "svc") -> MFAOwner {
        MFAOwner(subject: "sub-\(service)-\(user)", namespace: "env:kid/\(service)", authServiceId: service, userId: user)
    }

    /// A pending QR sign-in expiring `expiresIn` seconds after ``now``.
    public static func qrLogin(_ hash: String, expiresIn: TimeInterval = 120) -> QRLogin {
        QRLogin(codeHash: hash, pendingIdHash: "p-\(hash)", browserHash: "b", clientId: "kid", appKey: "kid",
                authServiceId: "svc", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0", acceptLanguage: "de-CH",
                clientAddress: "2001:db8::1", createdAt: now, expiresAt: now.addingTimeInterval(expiresIn))
    }

    public static func device(_ hash: String, userCode: String, expiresIn: TimeInterval = 600) -> DeviceAuthorization {
        DeviceAuthorization(deviceCodeHash: hash, userCodeHash: userCode, clientId: "kid", clientAuthenticated: true, scope: "openid profile",
                            resources: ["https://api.example.com"], interval: 5, createdAt: now,
                            expiresAt: now.addingTimeInterval(expiresIn))
    }
}
