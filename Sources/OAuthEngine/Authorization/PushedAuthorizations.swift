import Foundation
import IdentityCore
import StoreContracts

/// `POST /oauth/par`'s answer (RFC 9126 §2.2).
public struct PushedAuthorizationResponse: Codable, Sendable, Equatable {
    public var request_uri: String
    public var expires_in: Int
}

/// What `request_uri` a browser brought to `/oauth/auth`.
struct PushedParameters: Codable {
    var clientId: String
    var pairs: [[String]]
}

/// Pushed authorization requests (RFC 9126; docs/api-resources.md, "Pushed authorization
/// requests"): the client posts the authorization request, authenticated as at the token
/// endpoint and checked exactly as `/oauth/auth` would check it, and gets a `request_uri` that
/// its browser then takes to `/oauth/auth` — single use, bound to the client, living 60 s. The
/// parameters are sealed in storage, so any instance can take them.
public struct PushedAuthorizations: Sendable {
    let context: EngineContext
    let grantStore: any OneTimeGrantStore
    let clients: ClientRegistry
    let rateLimiter: RateLimiter
    let dpop: DPoPGate
    let requestObjects: RequestObjects

    public static let lifetime = 60
    public static let uriPrefix = "urn:ietf:params:oauth:request_uri:"

    /// Checks and stores a pushed request; errors are the token endpoint's JSON errors. A DPoP
    /// proof (`dpopProofs`, RFC 9449 §10.1) binds the code to its key, as `dpop_jkt` would.
    public func push(_ parameters: OAuthParameters, basic: BasicCredentials?,
                     clientAddress: String?, dpopProofs: [String] = [], path: String = "/oauth/par") async throws -> PushedAuthorizationResponse {
        let state = context.state
        let caller = try await clients.authenticate(parameters, basic: basic, in: state)
        if let named = parameters["client_id"], named != caller.client.clientId {
            throw OAuthError.invalidRequest("client_id does not match the authenticated client.")
        }
        guard parameters["request_uri"] == nil else {
            throw OAuthError.invalidRequest("A pushed request must not carry request_uri.")
        }
        var pairs = parameters.pairs.filter { $0.0 != "client_secret" && $0.0 != "client_assertion" && $0.0 != "client_assertion_type" }
        if parameters["client_id"] == nil { pairs.append(("client_id", caller.client.clientId)) }
        // A signed request object (RFC 9101 §6) stands for the whole request; an environment
        // with requireSignedRequestObject pushes nothing else.
        do {
            pairs = try await requestObjects.expand(try OAuthParameters(pairs: pairs), pushed: false, in: state).pairs
        } catch let failure as AuthorizationFailure {
            throw failure.error.code == .invalidClient ? OAuthError.invalidClient(failure.error.errorDescription) : failure.error
        }
        if let proven = try await dpop.tokenRequest(proofs: dpopProofs, path: path, client: caller.client, proofRequired: false) {
            switch pairs.last(where: { $0.0 == "dpop_jkt" })?.1 {
            case nil: pairs.append(("dpop_jkt", proven))
            case proven?: break
            default: throw DPoPGate.invalidProof("dpop_jkt names another key than the DPoP proof's.", resource: false)
            }
        }
        let pushed = try OAuthParameters(pairs: pairs)
        do {
            _ = try await AuthorizationRequest.parse(pushed, issuer: context.issuer) { try await clients.resolve($0, in: state) }
        } catch {
            // JSON answers: the client is talking to us directly, nothing is redirected.
            throw error.error.code == .invalidClient ? OAuthError.invalidClient(error.error.errorDescription) : error.error
        }
        try await rateLimiter.admit(.authorization, clientAddress: clientAddress)
        let uri = Self.uriPrefix + Secrets.randomToken()
        let hash = Secrets.hash(uri)
        let payload = PushedParameters(clientId: caller.client.clientId, pairs: pairs.map { [$0.0, $0.1] })
        let sealed = try context.vault.seal(try JSONEncoder.sortedCompact.encode(payload), VaultBindings.pushed(hash: hash))
        try await grantStore.insertOneTimeGrant(hash: hash, sealed: sealed,
                                                  expiresAt: context.clock.now().addingTimeInterval(TimeInterval(Self.lifetime)))
        return PushedAuthorizationResponse(request_uri: uri, expires_in: Self.lifetime)
    }

    /// The parameters an authorization request stands for: the pushed ones when it names a
    /// `request_uri` of ours (taken: single use), else its own. Other `request_uri` values are
    /// left for the request's own check to refuse.
    func expand(_ parameters: OAuthParameters) async throws(AuthorizationFailure) -> (parameters: OAuthParameters, pushed: Bool) {
        guard let uri = parameters["request_uri"], uri.hasPrefix(Self.uriPrefix) else { return (parameters, false) }
        let gone = AuthorizationFailure.cannotRedirect(.invalidRequest("This pushed request has expired or was already used; start again from the app."))
        let hash = Secrets.hash(uri)
        let payload: PushedParameters
        do {
            guard uri.utf8.count <= 128, let taken = try await grantStore.takeOneTimeGrant(hash: hash),
                  context.clock.now() < taken.expiresAt else { throw gone }
            payload = try JSONDecoder().decode(PushedParameters.self, from: try context.vault.open(taken.sealed, VaultBindings.pushed(hash: hash)))
        } catch let failure as AuthorizationFailure {
            throw failure
        } catch {
            throw .cannotRedirect(.wrapping(error, "pushed request"))
        }
        guard parameters["client_id"] == payload.clientId else {
            throw .cannotRedirect(.invalidRequest("This pushed request belongs to another client."))
        }
        do {
            return (try OAuthParameters(pairs: payload.pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }), true)
        } catch {
            throw .cannotRedirect(.wrapping(error, "pushed request"))
        }
    }
}
