import Foundation

/// `tokenExchange` of an auth service: what its clients may exchange at the token endpoint
/// (RFC 8693, docs/token-exchange.md). Absent: nothing (`unauthorized_client`). The exchanges of
/// broker tokens need the client's secret; bringing an identity source's own token does not (the
/// token is the proof, checked by the source).
public struct TokenExchangeSettings: Sendable, Equatable {
    /// API audiences (of the environment's `apiResources`) a broker access token may be exchanged
    /// for: a token aimed at another API, never with more scope than the one brought.
    public var audiences: [String]
    /// Client ids whose access tokens may come as `actor_token` (delegation: the new token's `act`).
    public var actors: [String]
    /// Data links whose back ends may receive the user's upstream token: `audience=<link name>`.
    public var dataLinks: [String]
    /// An app holding a token of this auth service's own identity source (an `openid-connect`
    /// provider's access token or ID token) gets the broker's tokens for the same user, as if it
    /// had signed in here.
    public var upstreamTokens: Bool
    /// The `aud` an upstream ID token may name (the apps' client ids at the provider); empty: the
    /// connector's own `clientId`.
    public var upstreamAudiences: [String]

    public init(audiences: [String] = [], actors: [String] = [], dataLinks: [String] = [], upstreamTokens: Bool = false,
                upstreamAudiences: [String] = []) {
        self.audiences = audiences
        self.actors = actors
        self.dataLinks = dataLinks
        self.upstreamTokens = upstreamTokens
        self.upstreamAudiences = upstreamAudiences
    }
}
