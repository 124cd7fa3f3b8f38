import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// `grant_type=password` for password connectors; the client must authenticate.
struct PasswordGrant: TokenGrant {
    static let grantType = "password"
    let checker: PasswordChecker
    let secondFactors: SecondFactors
    let sessions: any SessionStore
    let issuer: TokenIssuer
    let audit: AuditTrail

    func grant(_ parameters: OAuthParameters, client authenticated: AuthenticatedClient, keys: SigningKeyRing,
               clientAddress: String?) async throws -> TokenResponse {
        guard authenticated.authenticated else {
            throw OAuthError.invalidClient("The password grant requires client authentication.")
        }
        let client = authenticated.client
        let username = try parameters.require("username")
        let password = try parameters.require("password")
        let scope = Scopes.grant(parameters["scope"], within: client.instance?.scope,
                                 extra: Scopes.extra(for: client))
        try client.apiResources.checkRequested(parameters["scope"])
        let targets = try client.apiResources.targets(parameters.resources, granted: scope)
        let otp = parameters["otp"]
        let credentials = PasswordCredentials(username: username, password: password, scopes: scope.split(separator: " ").map(String.init),
                                              otp: otp)
        let identity: ConnectorIdentity
        switch try await checker.attempt(credentials, client: client, clientAddress: clientAddress).get() {
        case .identity(let found, _): identity = found
        case .challenge(let challenge):
            // The identity source asks a question (docs/mfa.md, "AuthLink challenges"): the app
            // shows it and repeats the request with the answer as `otp`.
            throw OAuthError.mfaRequired(challenge.message)
        }
        let amr = try await secondFactors.checkAPI(userId: identity.userId, client: client, amr: ["pwd"], otp: otp,
                                                   address: clientAddress)
        return try await guarded("password grant issuance") {
            let session = try issuer.makeSession(identity: identity, client: client, amr: amr)
            try await sessions.insertSession(session)
            audit.signedIn(session, client: client, address: clientAddress)
            return try await issuer.issueNewFamily(session: session, client: authenticated, scope: scope, nonce: nil,
                                                   familyId: Secrets.randomToken(bytes: 24), resources: targets, keys: keys)
        }
    }
}
