import Foundation

/// An environment's client authentication (docs/client-authentication.md): a shared secret as
/// such, a JWT signed with the secret (RFC 7523, `client_secret_jwt`), or a JWT signed with a
/// private key whose public half is configured or published (`private_key_jwt`).
public struct ClientAuthSettings: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case clientSecret = "client_secret"
        case clientSecretJWT = "client_secret_jwt"
        case privateKeyJWT = "private_key_jwt"
    }

    public var method: Method
    /// `private_key_jwt`: the client's public keys, the JSON text of a JWK set.
    public var jwks: String?
    /// `private_key_jwt`: where the client publishes its JWK set (fetched, cached, fetched again
    /// for an unknown `kid` at most every 30 seconds).
    public var jwksUri: URL?

    public init(method: Method, jwks: String? = nil, jwksUri: URL? = nil) {
        self.method = method
        self.jwks = jwks
        self.jwksUri = jwksUri
    }
}
