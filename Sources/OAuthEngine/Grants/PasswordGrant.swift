import Foundation
import IdentityCore

extension BrokerEngine {
    /// `grant_type=password` for password connectors; the client must authenticate.
    func passwordGrant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient,
                       state: EngineState, clientAddress: String?) async throws -> TokenResponse {
        guard authenticated.authenticated else {
            throw OAuthError.invalidClient("The password grant requires client authentication.")
        }
        let client = authenticated.client
        let username = try parameters.require("username")
        let password = try parameters.require("password")
        let scope = Scopes.grant(parameters["scope"], within: client.instance?.scope)
        let credentials = PasswordCredentials(username: username, password: password, scopes: scope.split(separator: " ").map(String.init))
        let identity = try await attemptPassword(credentials, client: client, clientAddress: clientAddress).get()
        return try await guarded("password grant issuance") {
            let session = try await createSession(identity: identity, client: client)
            return try await issueNewFamily(session: session, client: authenticated, scope: scope, nonce: nil,
                                            familyId: Secrets.randomToken(bytes: 24), keys: state.keys)
        }
    }
}
