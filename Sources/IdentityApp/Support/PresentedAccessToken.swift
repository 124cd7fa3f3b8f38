import Hummingbird
import IdentityCore
import OAuthEngine

extension Response {
    /// With a fresh `DPoP-Nonce` when `request` sent a DPoP proof (RFC 9449 §8.2).
    func withDPoPNonce(for request: Request, dpop: DPoPGate) -> Response {
        guard request.headers[.dpop] != nil, let nonce = dpop.nonceForAnswer() else { return self }
        var response = self
        response.headers[.dpopNonce] = nonce
        return response
    }
}

/// The access token a resource request carries and how (docs/dpop.md): `Authorization: Bearer`,
/// `Authorization: DPoP` with the `DPoP` proof header (RFC 9449 §7), or an `access_token`
/// parameter (bearer only).
struct PresentedAccessToken {
    let token: String
    let presentation: TokenPresentation

    /// The token of the `Authorization` header, nil when there is none of either scheme. `issuer`
    /// names the URL the client signed (`htu`): the broker's public one, not the socket's.
    static func fromHeader(_ request: Request, issuer: String) throws -> PresentedAccessToken? {
        guard let header = request.headers.value(.authorization) else { return nil }
        if header.utf8.count > 5, header.hasASCIICaseInsensitivePrefix("dpop ") {
            let token = header.dropFirst(5).trimmingSpacesAndTabs
            guard !token.isEmpty else { throw OAuthError.invalidToken("The DPoP access token is empty.") }
            let proved = DPoPRequest(method: request.method.rawValue, url: issuer + request.uri.path)
            return PresentedAccessToken(token: token, presentation: .dpop(proofs: request.headers[values: .dpop], request: proved))
        }
        return try SessionController.bearer(request).map { PresentedAccessToken(token: $0, presentation: .bearer) }
    }

    /// The header's token, else the `access_token` parameter as a bearer token.
    static func from(_ request: Request, parameters: OAuthParameters, issuer: String) throws -> PresentedAccessToken? {
        if let presented = try fromHeader(request, issuer: issuer) { return presented }
        return parameters["access_token"].map { PresentedAccessToken(token: $0, presentation: .bearer) }
    }

    /// Runs `body`; an `invalid_token` of a request that used the DPoP scheme is challenged with
    /// `WWW-Authenticate: DPoP` (RFC 9449 §7.1), and so is a step-up challenge (RFC 9470).
    func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch var error as OAuthError {
            if case .dpop = presentation, error.code == .invalidToken || error.code == .insufficientUserAuthentication {
                error.dpopChallenge = true
            }
            throw error
        }
    }
}
