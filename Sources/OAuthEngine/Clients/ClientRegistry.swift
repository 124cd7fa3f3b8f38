import Foundation
import IdentityCore
import StoreContracts

/// Finds and authenticates clients: configured ones (`appKey`, `appKey.authServiceId`, from the
/// configuration) and registered app instances (`dyn~…`, from storage),
/// docs/protocol.md, "Client identification and authentication" and "Mobile app instances".
public struct ClientRegistry: Sendable {
    let live: LiveState
    let instances: any RegisteredClientStore
    /// `private_key_jwt` and `client_secret_jwt` (docs/client-authentication.md).
    let assertions: ClientAssertions

    /// Registered app instances have client ids of this form: `dyn~<software_id>~<uuid>`.
    public static let instancePrefix = "dyn~"

    static func isInstanceId(_ clientId: String) -> Bool {
        clientId.hasPrefix(instancePrefix) && clientId.utf8.count <= 160
    }

    /// Resolves any client id in `state` (the request's snapshot); nil when unknown or removed.
    public func resolve(_ clientId: String, in state: EngineState) async throws -> ResolvedClient? {
        guard clientId.hasPrefix(Self.instancePrefix) else { return state.directory.resolve(clientId) }
        guard Self.isInstanceId(clientId),
              let instance = try await instances.registeredClient(id: clientId) else { return nil }
        return state.directory.resolve(instance: instance)
    }

    /// Resolves in the current state.
    public func resolve(_ clientId: String) async throws -> ResolvedClient? {
        try await resolve(clientId, in: live.snapshot)
    }

    /// Client authentication for every client-authenticated endpoint. Configured clients prove
    /// the environment's `appSecret`; instances prove their own secret, checked against its
    /// stored hash, and always must (PKCE or a refresh token alone would let a stolen one be
    /// used without the instance's credentials). A deleted instance is `invalid_client`.
    ///
    /// A `client_assertion` (RFC 7523) authenticates environments whose `clientAuth` asks for
    /// one; those environments' clients are refused with anything else, their secret included
    /// (docs/client-authentication.md).
    public func authenticate(_ parameters: OAuthParameters, basic: BasicCredentials?, in state: EngineState) async throws -> AuthenticatedClient {
        if let assertion = try ClientAssertion.from(parameters) {
            return try await authenticate(assertion, parameters: parameters, basic: basic, in: state)
        }
        let basicInstanceId = basic?.userCandidates.first(where: { $0.hasPrefix(Self.instancePrefix) })
        let bodyClientId = parameters["client_id"]
        guard let instanceId = bodyClientId.flatMap({ $0.hasPrefix(Self.instancePrefix) ? $0 : nil }) ?? basicInstanceId else {
            let named = bodyClientId.map { [$0] } ?? basic?.userCandidates ?? []
            if let method = named.lazy.compactMap({ state.directory.resolve($0)?.environment.clientAuth?.method }).first,
               method != .clientSecret {
                throw OAuthError.invalidClient("This client authenticates with a signed client assertion (\(method.rawValue)).")
            }
            return try ClientAuthenticator(directory: state.directory).authenticate(parameters, basic: basic)
        }
        if let bodyClientId, bodyClientId != instanceId {
            throw OAuthError.invalidClient("The Basic credentials name a different client than client_id.")
        }
        if let basic, !basic.userCandidates.contains(instanceId) {
            throw OAuthError.invalidClient("The Basic credentials name a different client than client_id.")
        }
        guard let client = try await resolve(instanceId, in: state), let instance = client.instance else {
            throw OAuthError.invalidClient("Unknown client.")
        }
        var presented: [String] = basic?.passwordCandidates ?? []
        if let secret = parameters["client_secret"] { presented.append(secret) }
        var matched = false
        for candidate in presented where candidate.utf8.count <= 256
            && Secrets.constantTimeEquals(Secrets.hash(candidate), instance.secretHash) { matched = true }
        guard matched else {
            throw OAuthError.invalidClient(presented.isEmpty ? "This app instance must authenticate with its client secret."
                                                             : "Client authentication failed.")
        }
        return AuthenticatedClient(client: client, authenticated: true)
    }

    /// A request authenticated by a JWT: the only method it uses (RFC 6749 §2.3), naming the
    /// client of `client_id` when one is sent (the bare appKey names every `appKey.service`).
    private func authenticate(_ assertion: ClientAssertion, parameters: OAuthParameters, basic: BasicCredentials?,
                              in state: EngineState) async throws -> AuthenticatedClient {
        guard basic == nil, parameters["client_secret"] == nil else {
            throw OAuthError.invalidClient("Use one client authentication method per request: the client assertion, or the secret.")
        }
        let clientId = parameters["client_id"] ?? assertion.clientId
        guard let client = try await resolve(clientId, in: state) else { throw OAuthError.invalidClient("Unknown client.") }
        guard assertion.clientId == clientId || (client.instance == nil && assertion.clientId == client.appKey) else {
            throw OAuthError.invalidClient("The client assertion names a different client than client_id.")
        }
        try await assertions.authenticate(assertion, as: client)
        return AuthenticatedClient(client: client, authenticated: true)
    }

    /// Refuses grant types the instance's software statement did not give it.
    static func requireInstanceGrant(_ grantType: String, for client: ResolvedClient) throws {
        guard let instance = client.instance else { return }
        guard instance.grantTypes.contains(grantType) else {
            throw OAuthError(.unauthorizedClient, "This app instance may not use grant_type=\(grantType).")
        }
    }
}
