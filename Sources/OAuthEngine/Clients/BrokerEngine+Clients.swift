import Foundation
import IdentityCore
import StoreContracts

extension BrokerEngine {
    /// Registered app instances have client ids of this form: `dyn~<software_id>~<uuid>` (SPEC §3.8).
    public static let instancePrefix = "dyn~"

    static func isInstanceId(_ clientId: String) -> Bool {
        clientId.hasPrefix(instancePrefix) && clientId.utf8.count <= 160
    }

    /// Resolves any client id: a configured one (`appKey`, `appKey.authServiceId`) from the
    /// configuration, a registered instance from storage. Nil when unknown or removed.
    public func resolveClient(_ clientId: String, state: EngineState) async throws -> ResolvedClient? {
        guard clientId.hasPrefix(Self.instancePrefix) else { return state.directory.resolve(clientId) }
        guard Self.isInstanceId(clientId),
              let instance = try await guarded("read instance", { try await store.registeredClient(id: clientId) }) else { return nil }
        return state.directory.resolve(instance: instance)
    }

    /// Client authentication for every client-authenticated endpoint. Configured clients prove
    /// the environment's `appSecret` (SPEC §3); instances prove their own secret, checked
    /// against its stored hash. A deleted instance is `invalid_client`.
    public func authenticateClient(_ parameters: OAuthParameters, basic: BasicCredentials?, state: EngineState) async throws -> AuthenticatedClient {
        let basicInstanceId = basic?.userCandidates.first(where: { $0.hasPrefix(Self.instancePrefix) })
        let bodyClientId = parameters["client_id"]
        guard let instanceId = bodyClientId.flatMap({ $0.hasPrefix(Self.instancePrefix) ? $0 : nil }) ?? basicInstanceId else {
            return try ClientAuthenticator(directory: state.directory).authenticate(parameters, basic: basic)
        }
        if let bodyClientId, bodyClientId != instanceId {
            throw OAuthError.invalidClient("The Basic credentials name a different client than client_id.")
        }
        if let basic, !basic.userCandidates.contains(instanceId) {
            throw OAuthError.invalidClient("The Basic credentials name a different client than client_id.")
        }
        guard let client = try await resolveClient(instanceId, state: state), let instance = client.instance else {
            throw OAuthError.invalidClient("Unknown client.")
        }
        var presented: [String] = basic?.passwordCandidates ?? []
        if let secret = parameters["client_secret"] { presented.append(secret) }
        var matched = false
        for candidate in presented where candidate.utf8.count <= 256
            && Secrets.constantTimeEquals(Secrets.hash(candidate), instance.secretHash) { matched = true }
        // An instance was given a secret at registration (token_endpoint_auth_method
        // client_secret_basic) and must always present it (SPEC §3): PKCE alone would let a stolen
        // refresh token or code be used without the instance's credentials.
        guard matched else {
            throw OAuthError.invalidClient(presented.isEmpty ? "This app instance must authenticate with its client secret."
                                                             : "Client authentication failed.")
        }
        return AuthenticatedClient(client: client, authenticated: true)
    }

    /// Refuses grant types the instance's software statement did not give it.
    func requireInstanceGrant(_ grantType: String, for client: ResolvedClient) throws {
        guard let instance = client.instance else { return }
        guard instance.grantTypes.contains(grantType) else {
            throw OAuthError(.unauthorizedClient, "This app instance may not use grant_type=\(grantType).")
        }
    }

    /// Binds an app instance to the user of `session` when it redeems a code (or password grant)
    /// of that user with its own secret (SPEC §9.1). The first redemption binds it; a later one by
    /// the same user moves it to the new session; another user is refused.
    func bindInstance(_ client: ResolvedClient, to session: LoginSession) async throws {
        guard let instance = client.instance else { return }
        try checkInstanceMayServe(client, subject: session.subject)
        let bound = try await store.bindRegisteredClient(id: instance.clientId, subject: session.subject,
                                                         sessionId: session.id, at: clock.now())
        guard bound else { throw Self.boundToAnotherUser }
    }

    /// Refuses, before anything is stored or issued, an app instance bound to another user and
    /// one nobody signed in to within its first hour (housekeeping removes it soon; until then it
    /// must not be bound either, SPEC §3.8). Binds nothing.
    func checkInstanceMayServe(_ client: ResolvedClient, subject: String) throws {
        guard let instance = client.instance else { return }
        if let bound = instance.boundSubject {
            guard Secrets.constantTimeEquals(bound, subject) else { throw Self.boundToAnotherUser }
            return
        }
        if clock.now().timeIntervalSince(instance.createdAt) > Self.unboundInstanceLifetime {
            throw OAuthError(.accessDenied, "This app instance was not signed in to within an hour of its registration; register it again.")
        }
    }

    static let boundToAnotherUser = OAuthError(.accessDenied, "This app instance is registered to another user.")
}
