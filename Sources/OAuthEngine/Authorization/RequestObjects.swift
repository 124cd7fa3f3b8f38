import Foundation
import IdentityCore
import JOSE

/// Signed authorization requests (RFC 9101, JAR): a `request` parameter holding every parameter
/// of the request as claims of a JWT the client signed with the keys it authenticates with
/// (`clientAuth`: its private key, or HS256 with its secret), by value at `/oauth/auth` or pushed
/// through PAR; docs/client-authentication.md, "Signed authorization requests". Environments with
/// `requireSignedRequestObject` take no other request.
struct RequestObjects: Sendable {
    /// The longest lifetime accepted (`exp` − now).
    static let maximumLifetime: TimeInterval = 3600
    static let maxLength = 16_384
    /// Claims that describe the JWT, not the request; never request parameters.
    static let envelopeClaims: Set<String> = ["iss", "aud", "exp", "iat", "nbf", "jti"]

    let issuer: String
    let clock: any BrokerClock
    let clients: ClientRegistry
    let assertions: ClientAssertions

    /// The parameters a request stands for: the claims of its verified `request` when it has one
    /// (RFC 9101 §6.3: the outer parameters, `client_id` aside, are ignored), else its own.
    /// `pushed`: the parameters came from PAR, which checked its own request object.
    func expand(_ parameters: OAuthParameters, pushed: Bool, in state: EngineState) async throws(AuthorizationFailure) -> OAuthParameters {
        guard let text = parameters["request"] else {
            if !pushed, let clientId = parameters["client_id"], let client = try? await clients.resolve(clientId, in: state),
               client.environment.requireSignedRequestObject {
                throw .cannotRedirect(.invalidRequest("This app must sign its authorization requests (a request object, RFC 9101)."))
            }
            return parameters
        }
        guard let clientId = parameters["client_id"] else { throw .cannotRedirect(.invalidRequest("The parameter 'client_id' is required.")) }
        let client: ResolvedClient
        do {
            guard let found = try await clients.resolve(clientId, in: state) else {
                throw OAuthError(.invalidClient, "Unknown client.", status: 400)
            }
            client = found
        } catch {
            throw .cannotRedirect(.wrapping(error, "client lookup"))
        }
        // A client that does not sign: the request's own check refuses the object with
        // request_not_supported, to the redirect URI (OIDC Core 6.1 lets a provider do so).
        guard client.instance == nil, (client.environment.clientAuth?.method ?? .clientSecret) != .clientSecret else { return parameters }
        let claims: [String: JSONValue]
        do {
            claims = try await verify(text, client: client, clientId: clientId)
        } catch {
            throw .cannotRedirect(.wrapping(error, "request object"))
        }
        var pairs: [(String, String)] = []
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) where !Self.envelopeClaims.contains(name) {
            switch value {
            case .string(let text): pairs.append((name, text))
            case .int(let number): pairs.append((name, String(number)))
            case .array(let items) where name == "resource": pairs += items.compactMap(\.stringValue).map { ("resource", $0) }
            case .null: continue
            default:
                // `claims` (OIDC Core 5.5) and other structured members travel as their JSON text.
                guard let data = try? JSONEncoder.sortedCompact.encode(value) else { continue }
                pairs.append((name, String(decoding: data, as: UTF8.self)))
            }
        }
        do {
            return try OAuthParameters(pairs: pairs)
        } catch {
            throw .cannotRedirect(OAuthError(.invalidRequestObject, "The request object's parameters are not acceptable (repeated or too long)."))
        }
    }

    /// The signature (the client's keys), `typ`, `iss` the client, `aud` this broker, an `exp`
    /// at most an hour away, a `client_id` claim naming the client of the request, and no
    /// `request` or `request_uri` inside.
    private func verify(_ text: String, client: ResolvedClient, clientId: String) async throws -> [String: JSONValue] {
        let kid = CompactJWS.decode(text, maxLength: Self.maxLength)?.keyId
        guard let keys = try await assertions.keys(of: client, kid: kid) else {
            throw OAuthError(.requestNotSupported,
                             "Request objects are taken from clients that sign (clientAuth: private_key_jwt or client_secret_jwt).")
        }
        let policy = JWTPolicy(use: "request object", algorithms: ClientAssertion.algorithms, types: ["oauth-authz-req+jwt", "JWT"],
                               typeMayBeAbsent: true, audience: issuer, requiredClaims: ["iss", "aud", "exp", "client_id"],
                               maxLength: Self.maxLength)
        let now = clock.now()
        let claims: [String: JSONValue]
        do {
            switch keys {
            case .published(let source): claims = try JWTVerifier.verify(text, keys: source, policy: policy, now: now).claims
            case .secret(let secret): claims = try SharedSecretJWT.verify(text, secret: Data(secret.utf8), policy: policy, now: now)
            }
        } catch {
            throw OAuthError(.invalidRequestObject, "The request object is not valid.", status: 400, debug: error.description)
        }
        guard let issuerClaim = claims["iss"]?.stringValue, issuerClaim == clientId || issuerClaim == client.appKey,
              claims["client_id"]?.stringValue == clientId else {
            throw OAuthError(.invalidRequestObject, "The request object's 'iss' and 'client_id' must name the client of the request.", status: 400)
        }
        guard let expiry = claims["exp"]?.numberValue, expiry <= now.timeIntervalSince1970 + Self.maximumLifetime + 60 else {
            throw OAuthError(.invalidRequestObject, "The request object may live at most an hour ('exp').", status: 400)
        }
        guard claims["request"] == nil, claims["request_uri"] == nil else {
            throw OAuthError(.invalidRequestObject, "A request object must not hold another request or request_uri.", status: 400)
        }
        return claims
    }
}
