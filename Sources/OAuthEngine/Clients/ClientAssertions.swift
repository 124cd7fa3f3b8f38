import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// Client authentication by JWT (RFC 7523, OpenID Connect Core §9) for environments whose
/// `clientAuth` says so (docs/client-authentication.md): finds the keys — the configured JWK set,
/// the one published at `jwksUri`, or the secret for `client_secret_jwt` — verifies the
/// assertion, then spends its `jti` in the one-time grant store, which every instance shares, so
/// an assertion authenticates one request anywhere.
struct ClientAssertions: Sendable {
    let issuer: String
    let clock: any BrokerClock
    let replay: any OneTimeGrantStore
    let keySets: ClientKeySets

    func authenticate(_ assertion: ClientAssertion, as client: ResolvedClient) async throws {
        guard client.instance == nil else {
            throw OAuthError.invalidClient("App instances authenticate with their client secret, not a client assertion.")
        }
        let kid = CompactJWS.decode(assertion.text, maxLength: ClientAssertion.maxLength)?.keyId
        guard let keys = try await keys(of: client, kid: kid) else {
            throw OAuthError.invalidClient("This client authenticates with its secret, not a client assertion.")
        }
        let verified = try assertion.verify(keys: keys, issuer: issuer, now: clock.now())
        let key = Secrets.hash("client-assertion|\(client.appKey)|\(verified.jti)")
        let fresh: Bool
        do {
            // Kept five minutes past `exp`: an instance whose clock runs behind still finds it.
            fresh = try await replay.insertOneTimeGrantIfAbsent(hash: key, sealed: Data(),
                                                                expiresAt: verified.expiresAt.addingTimeInterval(300))
        } catch {
            throw OAuthError.wrapping(error, "client assertion replay check")
        }
        guard fresh else { throw OAuthError.invalidClient("This client assertion was used before (jti).") }
    }

    /// What verifies JWTs a client signs (its assertions, its request objects): its configured or
    /// published public keys (`private_key_jwt`), its secret (`client_secret_jwt`); nil for a
    /// client without `clientAuth` or an app instance.
    func keys(of client: ResolvedClient, kid: String?) async throws -> ClientAssertion.Keys? {
        guard client.instance == nil, let settings = client.environment.clientAuth else { return nil }
        switch settings.method {
        case .privateKeyJWT:
            if let configured = client.entry.clientKeys { return .published(PublishedKeys(set: configured)) }
            guard let url = settings.jwksUri else { throw OAuthError.internalFailure("private_key_jwt client \(client.appKey) has no keys") }
            return .published(PublishedKeys(set: try await keySets.keys(at: url, kid: kid)))
        case .clientSecretJWT:
            guard let secret = client.environment.appSecret else {
                throw OAuthError.internalFailure("client_secret_jwt client \(client.appKey) has no appSecret")
            }
            return .secret(secret)
        case .clientSecret:
            return nil
        }
    }
}
