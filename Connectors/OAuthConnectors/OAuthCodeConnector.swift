import Crypto
import Foundation
import IdentityCore

/// `oauth2` / `openid-connect` with `grantType: authorization_code`: the browser goes to the
/// provider and comes back to `<issuer>/oauth/callback`. PKCE (S256) and `state` always; OIDC adds
/// a nonce bound to the id_token.
final class OAuthCodeConnector: RedirectConnector, RefreshingConnector {
    let upstream: OAuthUpstream

    init(upstream: OAuthUpstream) { self.upstream = upstream }

    var callbackKind: CallbackKind { .oauthCallback }

    /// What is sealed by the broker until the callback: the PKCE verifier and the nonce.
    struct SavedState: Codable {
        var verifier: String
        var nonce: String?
    }

    func beginLogin(_ request: RedirectLoginRequest) async throws -> RedirectLoginStart {
        let options = upstream.options
        let verifier = Secrets.randomToken(bytes: 32)
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        let nonce = options.openID ? Secrets.randomToken(bytes: 24) : nil
        var query: [(String, String)] = [("response_type", "code"), ("client_id", options.clientId),
                                         ("redirect_uri", options.redirectURI)]
        if !options.scopes.isEmpty { query.append(("scope", options.scopes.joined(separator: " "))) }
        query += [("state", request.relayState), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        if let nonce { query.append(("nonce", nonce)) }
        if options.openID {
            if let hint = request.loginHint, !hint.isEmpty { query.append(("login_hint", hint)) }
            if request.forceLogin { query.append(("prompt", "login")) }
        }
        let endpoint = try await upstream.authorizationEndpoint()
        let encoded = query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        let url = endpoint + (endpoint.contains("?") ? "&" : "?") + encoded
        let saved = try JSONEncoder().encode(SavedState(verifier: verifier, nonce: nonce))
        return RedirectLoginStart(action: .redirect(url), savedState: saved)
    }

    /// Errors a provider sends back when the user (or policy) said no: `access_denied` to the app.
    static let refusals: Set<String> = ["access_denied", "login_required", "consent_required", "interaction_required",
                                        "account_selection_required"]

    func finishLogin(_ callback: RedirectCallback) async throws -> LoginResult {
        guard let saved = try? JSONDecoder().decode(SavedState.self, from: callback.savedState) else {
            throw ConnectorFailure(.invalidResponse, "The sign-in state was lost; start again.")
        }
        let parameters = callback.parameters
        if let error = parameters["error"] {
            let description = parameters["error_description"].map { String($0.prefix(200)) }
            if Self.refusals.contains(error) {
                return .rejected(LoginRejection(.other, message: description ?? "The identity provider refused the sign-in."))
            }
            if error == "temporarily_unavailable" || error == "server_error" {
                throw ConnectorFailure(.unavailable, "The identity provider is temporarily unavailable.", debug: error)
            }
            throw ConnectorFailure(.invalidResponse, "The identity provider refused the sign-in request.", debug: error)
        }
        // RFC 9207: when the provider names itself, it must be the configured one (mix-up attacks).
        if let issuer = parameters["iss"], let expected = upstream.options.issuer, issuer != expected {
            throw ConnectorFailure(.invalidResponse, "The sign-in response came from another identity provider.")
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw ConnectorFailure(.invalidResponse, "The identity provider's response carries no authorization code.")
        }
        let grant = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", upstream.options.redirectURI),
                     ("code_verifier", saved.verifier)]
        switch try await upstream.tokenClient.request(try await upstream.tokenEndpoint(), grant: grant) {
        case .refused(let error, _):
            if error == "invalid_grant" || error == "access_denied" {
                return .rejected(LoginRejection(.other, message: "The identity provider refused the sign-in; start again."))
            }
            throw ConnectorFailure(.invalidResponse, "The identity provider refused the code exchange.", debug: error)
        case .tokens(let tokens):
            return .authenticated(try await upstream.identity(from: tokens, nonce: saved.nonce))
        }
    }

    func refresh(userId: String, upstream token: UpstreamToken) async throws -> RefreshOutcome {
        try await upstream.refresh(upstream: token)
    }

    static func encode(_ text: String) -> String {
        PercentEncoding.unreserved(text)
    }
}
