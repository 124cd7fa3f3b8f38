import Foundation

/// `tokenExchange` of an auth service: what its clients may exchange at the token endpoint
/// (RFC 8693, docs/token-exchange.md). Absent: nothing (`unauthorized_client`). Every use needs
/// the client's secret.
public struct TokenExchangeSettings: Sendable, Equatable {
    /// API audiences (of the environment's `apiResources`) a broker access token may be exchanged
    /// for: a token aimed at another API, never with more scope than the one brought.
    public var audiences: [String]
    /// Client ids whose access tokens may come as `actor_token` (delegation: the new token's `act`).
    public var actors: [String]
    /// Data links whose back ends may receive the user's upstream token: `audience=<link name>`.
    public var dataLinks: [String]

    public init(audiences: [String] = [], actors: [String] = [], dataLinks: [String] = []) {
        self.audiences = audiences
        self.actors = actors
        self.dataLinks = dataLinks
    }
}
