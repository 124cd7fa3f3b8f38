import Foundation
import IdentityCore
import IdentityStore

extension BrokerEngine {
    /// `POST /oauth/token` (SPEC §3.3): authenticates the client and runs the grant.
    public func token(_ parameters: OAuthParameters, basic: BasicCredentials?, clientAddress: String? = nil) async throws -> TokenResponse {
        let state = self.state
        guard let grantType = parameters["grant_type"] else {
            throw OAuthError.invalidRequest("The parameter 'grant_type' is required.")
        }
        let authenticator = ClientAuthenticator(directory: state.directory)
        switch grantType {
        case "authorization_code":
            return try await authorizationCodeGrant(parameters, client: try authenticator.authenticate(parameters, basic: basic), state: state)
        case "password":
            return try await passwordGrant(parameters, client: try authenticator.authenticate(parameters, basic: basic),
                                           state: state, clientAddress: clientAddress)
        case "refresh_token":
            return try await refreshTokenGrant(parameters, client: try authenticator.authenticate(parameters, basic: basic), state: state)
        default:
            throw OAuthError.unsupportedGrantType("Unsupported grant_type.")
        }
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
