import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// How a request presents an access token (docs/dpop.md).
public enum TokenPresentation: Sendable {
    /// `Authorization: Bearer` or an `access_token` parameter: only a token bound to no key passes.
    case bearer
    /// `Authorization: DPoP` with the request's `DPoP` header values (RFC 9449 §7): the token must
    /// be bound to the key of a valid proof for this request.
    case dpop(proofs: [String], request: DPoPRequest)
    /// A token endpoint request that already proved the key `thumbprint` (its own proof), or none:
    /// a subject or actor token of a token exchange. A bound token needs that same key.
    case keyProven(String?)
    /// Introspection: a resource server asks what the token is (`cnf` included), it does not use it.
    case inspection
}

/// DPoP (RFC 9449, docs/dpop.md): checks proofs at the token and PAR endpoints and on resource
/// requests, with server nonces where an auth service asks for them and a `jti` replay cache
/// shared by every instance (the one-time grant store).
public struct DPoPGate: Sendable {
    let context: EngineContext
    let replay: any OneTimeGrantStore
    let nonces: DPoPNonces

    init(context: EngineContext, replay: any OneTimeGrantStore) {
        self.context = context
        self.replay = replay
        nonces = DPoPNonces(context: context)
    }

    /// True when `client` must use DPoP: its auth service says `dpop.required`, or the app
    /// instance registered with `dpop_bound_access_tokens`.
    static func isRequired(for client: ResolvedClient) -> Bool {
        client.service.dpop?.required == true || client.instance?.dpopBoundAccessTokens == true
    }

    /// A token or PAR request (`POST <issuer><path>`): the thumbprint its tokens or code get bound
    /// to, nil when it sent no proof and `client` may use bearer tokens (always at PAR, where the
    /// binding may also come later, at the token endpoint).
    func tokenRequest(proofs: [String], path: String, client: ResolvedClient, proofRequired: Bool = true) async throws -> String? {
        guard !proofs.isEmpty else {
            guard !(proofRequired && Self.isRequired(for: client)) else {
                throw Self.invalidProof("This client must send a DPoP proof (RFC 9449).", resource: false)
            }
            return nil
        }
        let request = DPoPRequest(method: "POST", url: context.issuer + path)
        return try await admit(proofs, request: request, client: client, resource: false).thumbprint
    }

    /// Whether `token` may be used as `presented` (any resource endpoint). `binding` is the key the
    /// token is bound to (nil: a bearer token), `client` the one it was issued to.
    func checkUse(of token: String, binding: String?, client: ResolvedClient, presented: TokenPresentation) async throws {
        switch presented {
        case .inspection:
            return
        case .bearer:
            guard binding == nil else {
                throw Self.invalidToken("This access token is bound to a DPoP key: send it as Authorization: DPoP with a proof.")
            }
        case .keyProven(let thumbprint):
            guard binding == nil || binding == thumbprint else {
                throw OAuthError.invalidGrant("The token is bound to a DPoP key this request did not prove.")
            }
        case .dpop(let proofs, var request):
            guard let binding else {
                throw Self.invalidToken("This access token is not bound to a DPoP key: send it as Authorization: Bearer.")
            }
            request.accessToken = token
            let proof = try await admit(proofs, request: request, client: client, resource: true)
            guard Secrets.constantTimeEquals(proof.thumbprint, binding) else {
                throw Self.invalidProof("The proof is signed by another key than the one the token is bound to.", resource: true)
            }
        }
    }

    /// One proof, valid for `request`, with a current nonce where the client's auth service asks,
    /// never seen before on any instance.
    private func admit(_ proofs: [String], request: DPoPRequest, client: ResolvedClient, resource: Bool) async throws -> DPoPProof {
        guard proofs.count == 1, let text = proofs.first else {
            throw Self.invalidProof("Send exactly one DPoP header.", resource: resource)
        }
        let now = context.clock.now()
        let proof: DPoPProof
        do {
            proof = try DPoPProofChecker.check(text, for: request, now: now)
        } catch {
            context.logger.debug("DPoP proof refused", metadata: ["reason": "\(error.reason)"])
            throw Self.invalidProof("The DPoP proof is invalid: \(error.reason).", resource: resource)
        }
        if client.service.dpop?.nonce == true, !(proof.nonce.map(nonces.isCurrent) ?? false) {
            var error = OAuthError(.useDPoPNonce, "Sign the DPoP proof again with the nonce in the DPoP-Nonce header.",
                                   status: resource ? 401 : 400)
            error.dpopNonce = try nonces.fresh()
            error.dpopChallenge = resource
            throw error
        }
        let key = Secrets.hash("dpop-jti|\(proof.thumbprint)|\(proof.jti)")
        let forgetAt = proof.issuedAt.addingTimeInterval(DPoPProofChecker.maximumAge + DPoPProofChecker.skew)
        let fresh: Bool
        do {
            fresh = try await replay.insertOneTimeGrantIfAbsent(hash: key, sealed: Data(), expiresAt: max(forgetAt, now))
        } catch {
            throw OAuthError.wrapping(error, "DPoP replay check")
        }
        guard fresh else { throw Self.invalidProof("This DPoP proof was used before (jti).", resource: resource) }
        return proof
    }

    /// A fresh nonce for the `DPoP-Nonce` header of a successful answer to a request that sent a
    /// proof (RFC 9449 §8.2), so a client of an auth service with `dpop.nonce` rarely meets
    /// `use_dpop_nonce`; nil if the vault cannot seal.
    public func nonceForAnswer() -> String? { try? nonces.fresh() }

    static func invalidProof(_ description: String, resource: Bool) -> OAuthError {
        var error = OAuthError(.invalidDPoPProof, description, status: resource ? 401 : 400)
        error.dpopChallenge = resource
        return error
    }

    static func invalidToken(_ description: String) -> OAuthError {
        var error = OAuthError.invalidToken(description)
        error.dpopChallenge = true
        return error
    }
}
