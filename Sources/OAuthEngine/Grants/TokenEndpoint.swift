import Foundation
import IdentityCore
import StoreContracts
import Tracing

/// `POST /oauth/token` (docs/protocol.md, "POST /oauth/token"): authenticates the client,
/// dispatches on `grant_type` to one of its grants, and adds the app-to-web `css` value for an
/// instance that asked for `native`.
public struct TokenEndpoint: Sendable {
    let context: EngineContext
    let clients: ClientRegistry
    let grants: [String: any TokenGrant]
    let webSSO: WebSSO
    let dpop: DPoPGate

    init(context: EngineContext, clients: ClientRegistry, grants: [any TokenGrant], webSSO: WebSSO, dpop: DPoPGate) {
        self.context = context
        self.dpop = dpop
        self.clients = clients
        self.webSSO = webSSO
        var table: [String: any TokenGrant] = [:]
        for grant in grants { table[type(of: grant).grantType] = grant }
        self.grants = table
    }

    /// The grant types this endpoint runs (for discovery).
    public var grantTypes: [String] { grants.keys.sorted() }

    /// - Parameters:
    ///   - dpopProofs: the request's `DPoP` header values (RFC 9449): with one valid proof the
    ///     tokens are bound to its key (docs/dpop.md).
    ///   - path: the path the request came to (`/oauth/token`, `/v3/oauth/token`): the proof's `htu`.
    public func token(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String? = nil,
                      dpopProofs: [String] = [], path: String = "/oauth/token") async throws -> TokenResponse {
        let state = context.state
        guard let grantType = parameters["grant_type"] else {
            throw OAuthError.invalidRequest("The parameter 'grant_type' is required.")
        }
        guard let grant = grants[grantType] else { throw OAuthError.unsupportedGrantType("Unsupported grant_type.") }
        var client = try await clients.authenticate(parameters, basic: basic, in: state)
        try ClientRegistry.requireInstanceGrant(grantType, for: client.client)
        client.dpopJkt = try await dpop.tokenRequest(proofs: dpopProofs, path: path, client: client.client)
        var response = try await withSpan("oauth.grant", ofKind: .internal) { span in
            span.attributes["oauth.grant_type"] = grantType
            span.attributes["oauth.client_id"] = client.client.clientId
            return try await grant.grant(parameters, client: client, keys: state.keys, clientAddress: clientAddress)
        }
        if client.client.instance != nil, Scopes.contains(response.scope, "native") || Scopes.contains(parameters["scope"] ?? "", "native") {
            response.css = try await webSSO.issue(for: client.client)
        }
        return response
    }
}
