import Foundation
import IdentityCore
import JOSE
import StoreContracts

/// Native SSO across one environment's apps on one device (OpenID Connect Native SSO for Mobile
/// Apps 1.0, docs/native-sso.md). An app that signs in with `device_sso` also gets a device secret
/// (the ID token carries its hash, `ds_hash`); a second app of the same environment on the same
/// device exchanges that ID token and device secret at the token endpoint for its own tokens in
/// the same session — no browser. The secret is the session sealed by the vault: it works while
/// the session lives, and signing out (or the account page ending the sign-in) ends every app's.
enum NativeSSO {
    static let scope = "device_sso"
    static let deviceSecretType = "urn:x-oath:params:oauth:token-type:device-secret"

    /// What a device secret stands for.
    struct Secret: Codable {
        var sid: String
        var appKey: String
        /// The DPoP key of the app it was issued to (docs/dpop.md): the secret is then shared only
        /// with a request proving that key — the apps of one device use one key (their shared
        /// keychain's) — so a copied secret is worth as little as a copied bound token.
        var jkt: String?
    }

    static func secret(for session: LoginSession, dpopJkt: String?, vault: Vault) throws -> String {
        let sealed = try vault.seal(try JSONEncoder.sortedCompact.encode(Secret(sid: session.id, appKey: session.appKey, jkt: dpopJkt)),
                                    VaultBindings.deviceSecret())
        return Base64URL.encode(Array(sealed))
    }

    static func open(_ value: String, vault: Vault) -> Secret? {
        guard value.utf8.count <= 1024, let bytes = Base64URL.decode(value),
              let data = try? vault.open(Data(bytes), VaultBindings.deviceSecret()) else { return nil }
        return try? JSONDecoder().decode(Secret.self, from: data)
    }
}

extension TokenExchangeGrant {
    /// The second app's exchange: `subject_token` an ID token of ours (expired ones too) whose
    /// `ds_hash` is the hash of `actor_token`, a device secret of the same session and environment;
    /// the session still live (its upstream sign-in brought up to date) and strong enough for this
    /// app's auth service (a second factor it needs must have been proved). Answers a new family
    /// for this app in that session, with its own device secret.
    func nativeSSO(_ idToken: String, deviceSecret: String, parameters: OAuthParameters, client authenticated: AuthenticatedClient,
                   keys: SigningKeyRing) async throws -> TokenResponse {
        let client = authenticated.client
        guard client.service.nativeSSO else {
            throw OAuthError.unauthorizedClient("This client's auth service does not share sign-ins on the device (nativeSSO).")
        }
        if let audience = parameters["audience"], audience != context.issuer {
            throw OAuthError.invalidRequest("audience must be this server's issuer.")
        }
        let refused = OAuthError.invalidGrant("The ID token and device secret do not name a sign-in this app can share.")
        let state = context.state
        guard let verified = await verifier.keys.verify(idToken, policy: BrokerJWTPolicies.idTokenHint(issuer: context.issuer), with: state.keys),
              let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: verified.payload),
              let sid = claims.sid, let hash = claims.ds_hash,
              Secrets.constantTimeEquals(hash, AccessTokenHash.compute(deviceSecret)),
              let secret = NativeSSO.open(deviceSecret, vault: context.vault), secret.sid == sid, secret.appKey == client.appKey,
              secret.jkt == nil || secret.jkt == authenticated.dpopJkt,
              let issuedTo = state.directory.resolve(claims.aud), issuedTo.appKey == client.appKey, issuedTo.service.nativeSSO,
              var session = try await sessions.session(id: sid), session.isActive(at: context.clock.now()),
              session.subject == claims.sub else { throw refused }
        do {
            session = try await refresher.ensureFresh(session, authService: client.authService)
        } catch let ended as SessionEnded {
            throw OAuthError.invalidGrant(ended.reason)
        }
        let need = try await secondFactors.need(SecondFactors.owner(userId: session.userId, client: client), client: client, amr: session.amr)
        guard need == .none else {
            throw OAuthError(.loginRequired, "This app needs a sign-in with a second factor; sign in interactively.")
        }
        let scope = Scopes.grant(parameters["scope"] ?? "openid", within: client.instance?.scope, extra: Scopes.extra(for: client))
        try client.apiResources.checkRequested(parameters["scope"])
        let targets = try client.apiResources.targets(parameters.resources, granted: scope)
        var response = try await issuer.issueNewFamily(session: session, client: authenticated, scope: scope, nonce: nil,
                                                       familyId: Secrets.randomToken(bytes: 24), resources: targets, keys: keys)
        response.issued_token_type = TokenType.accessToken
        context.audit.record(AuditEvent(.tokenExchanged, [
            "client": client.clientId, "subject_client": issuedTo.clientId, "subject": session.subject, "session": session.id,
            "kind": "native_sso",
        ]))
        return response
    }
}
