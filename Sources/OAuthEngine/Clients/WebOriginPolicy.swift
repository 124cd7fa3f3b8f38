import Foundation
import IdentityCore
import StoreContracts

/// Which browser origins may read the answers of the token, userinfo, revocation and end-session
/// endpoints (CORS; docs/protocol.md and docs/security.md, "Browser apps (CORS)").
///
/// An origin is allowed for a client when the client lists it: a configured client through its
/// auth service's `webOrigins`, a registered app instance through its own `web_origins`. A
/// preflight names no client, so it is answered for an origin some client lists; the answer to
/// the request itself is readable only when the origin is allowed for the client the request is
/// for. A listed origin gains nothing a token or a client's credentials do not already give: no
/// cookie crosses (no `Access-Control-Allow-Credentials`), and a page reads only what its own
/// request was answered.
public struct WebOriginPolicy: Sendable {
    let live: LiveState
    let clients: ClientRegistry
    let instances: any RegisteredClientStore

    /// The client a request is for, as far as the route knows it.
    public enum RequestClient: Sendable {
        /// The request names no client (yet): its answer is an error that carries nothing of a client's.
        case unnamed
        /// The `client_id` the request names (the body's, else the Basic user), not yet resolved.
        case named(String)
        /// The client the endpoint resolved (userinfo: the access token's).
        case resolved(ResolvedClient)
    }

    /// The client `parameters` and `basic` name: the body's `client_id`, else the Basic user.
    public static func namedClient(_ parameters: OAuthParameters, basic: BasicCredentials?) -> RequestClient {
        guard let id = parameters["client_id"] ?? basic?.userCandidates.last else { return .unnamed }
        return .named(id)
    }

    /// Whether some client lists `origin`: the rule for preflights. A value that is not an origin
    /// as browsers send it (normalized) is never looked up.
    public func isListed(_ origin: String) async -> Bool {
        if live.snapshot.directory.webOrigins.contains(origin) { return true }
        guard Self.isSerializedOrigin(origin) else { return false }
        // A storage failure answers without CORS headers: the safe side.
        return (try? await instances.registeredClientListsWebOrigin(origin)) ?? false
    }

    /// Whether `origin` may read the answer to a request for `client`: it is among that client's
    /// origins. A request that names no client, or one that does not exist, is answered with an
    /// error; that may be read by an origin some client lists, so the page learns what went wrong.
    public func allows(_ origin: String, for client: RequestClient) async -> Bool {
        switch client {
        case .resolved(let resolved):
            return resolved.webOrigins.contains(origin)
        case .named(let id):
            guard let resolved = try? await clients.resolve(id) else { return await isListed(origin) }
            return resolved.webOrigins.contains(origin)
        case .unnamed:
            return await isListed(origin)
        }
    }

    /// True when `origin` is exactly how a browser serializes an origin.
    static func isSerializedOrigin(_ origin: String) -> Bool {
        guard case .success(let normalized) = WebOrigins.normalized(origin) else { return false }
        return normalized == origin
    }
}
