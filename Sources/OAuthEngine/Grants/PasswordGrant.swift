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
        let reset: PendingThrottleReset?
        switch try await checker.attempt(credentials, client: client, clientAddress: clientAddress, deferringReset: true).get() {
        case .identity(let found, let unsettled):
            (identity, reset) = (found, unsettled)
        case .challenge(let challenge):
            // The identity source asks a question (docs/mfa.md, "AuthLink challenges"): the app
            // shows it and repeats the request with the answer as `otp`.
            throw OAuthError.mfaRequired(challenge.message)
        }
        do {
            return try await afterPassword(identity, client: authenticated, scope: scope, targets: targets, otp: otp,
                                           keys: keys, clientAddress: clientAddress, reset: reset)
        } catch {
            try? await reset?.settle()
            throw error
        }
    }

    /// The password was right. The throttle's reset rides in the write that starts the session
    /// with its family (`SessionStore.startSession`: one write instead of three). A second factor
    /// settles it first, before it counts its own attempt against the same address.
    private func afterPassword(_ identity: ConnectorIdentity, client authenticated: AuthenticatedClient, scope: String,
                               targets: [String]?, otp: String?, keys: SigningKeyRing, clientAddress: String?,
                               reset: PendingThrottleReset?) async throws -> TokenResponse {
        let client = authenticated.client
        let need = try await secondFactors.need(SecondFactors.owner(userId: identity.userId, client: client), client: client, amr: ["pwd"])
        if need != .none {
            try await reset?.settle()
        }
        let amr = try await secondFactors.checkAPI(need, client: client, amr: ["pwd"], otp: otp, address: clientAddress)
        let session = try issuer.makeSession(identity: identity, client: client, amr: amr)
        // App instances may not use this grant (`SoftwareStatement.allowedGrantTypes`); were
        // one ever let in, it is bound to the user here, or refused, before anything is stored.
        try await issuer.binding.bind(client, to: session)
        let first = issuer.makeFamily(session: session, client: authenticated, scope: scope, nonce: nil,
                                      familyId: Secrets.randomToken(bytes: 24), resources: targets, claims: nil, online: false)
        try await sessions.startSession(session, family: first.family, throttleReset: reset?.reset)
        reset?.performed()
        audit.signedIn(session, client: client, address: clientAddress)
        return try await issuer.mintFirst(first, session: session, client: client, keys: keys)
    }
}
