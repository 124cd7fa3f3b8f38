import Foundation
import IdentityCore
import JOSE

/// One grant type of the token endpoint (docs/protocol.md, "POST /oauth/token"). The endpoint
/// authenticates the client and dispatches on `grant_type`; a grant holds only what it uses, so it
/// can be tested on its own.
protocol TokenGrant: Sendable {
    static var grantType: String { get }
    /// Runs the grant for an already authenticated (or identified, for public clients) client.
    /// - Parameters:
    ///   - keys: the signing keys of the request's state snapshot.
    ///   - clientAddress: the client's address, for throttling.
    func grant(_ parameters: OAuthParameters, client: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse
}
