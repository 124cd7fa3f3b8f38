import Foundation
import IdentityCore
import StoreContracts

extension BrokerEngine {
    /// `POST /oauth/token` (SPEC §3.3): authenticates the client and runs the grant.
    public func token(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String? = nil) async throws -> TokenResponse {
        let state = self.state
        guard let grantType = parameters["grant_type"] else {
            throw OAuthError.invalidRequest("The parameter 'grant_type' is required.")
        }
        guard ["authorization_code", "password", "refresh_token", "client_credentials"].contains(grantType) else {
            throw OAuthError.unsupportedGrantType("Unsupported grant_type.")
        }
        let client = try await authenticateClient(parameters, basic: basic, state: state)
        try requireInstanceGrant(grantType, for: client.client)
        var response: TokenResponse
        switch grantType {
        case "authorization_code":
            response = try await authorizationCodeGrant(parameters, client: client, state: state)
        case "password":
            response = try await passwordGrant(parameters, client: client, state: state, clientAddress: clientAddress)
        case "refresh_token":
            response = try await refreshTokenGrant(parameters, client: client, state: state)
        case "client_credentials":
            response = try await clientCredentialsGrant(parameters, client: client, state: state)
        default:
            throw OAuthError.unsupportedGrantType("Unsupported grant_type.")
        }
        if client.client.instance != nil, Scopes.contains(response.scope, "native") || Scopes.contains(parameters["scope"] ?? "", "native") {
            response.css = try await guarded("css") { try await issueWebSSOValue(for: client.client) }
        }
        return response
    }

    /// Runs `body`, turning storage and other unexpected failures into a logged 500 without details.
    func guarded<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as OAuthError {
            throw error
        } catch let failure as AuthorizationFailure {
            throw failure.error
        } catch let error as StorageUnavailable {
            throw OAuthError.unavailable("The service is temporarily unavailable; try again.", debug: "\(what): \(error)")
        } catch {
            throw OAuthError.internalFailure("\(what): \(error)")
        }
    }
}
