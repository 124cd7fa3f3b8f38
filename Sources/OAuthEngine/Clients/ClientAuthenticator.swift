import Foundation
import IdentityCore

/// HTTP Basic credentials from an `Authorization` header.
public struct BasicCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Parses `Basic base64(user:password)`; nil when the header is not Basic; throws
    /// `invalid_client` when it is Basic but malformed (bad base64, not UTF-8, no colon).
    ///
    /// Decodes on the value's UTF-8 bytes rather than through Foundation's base64 and
    /// `String(data:encoding:)`: every introspection and token request parses this header.
    public init?(authorizationHeader header: String?) throws {
        guard let header, header.utf8.count > 6, header.hasASCIICaseInsensitivePrefix("basic ") else { return nil }
        var encoded = header.dropFirst(6).trimmingSpacesAndTabs
        let parsed: (user: String, password: String)? = encoded.withUTF8 { bytes in
            guard bytes.count <= 4096, let decoded = Base64URL.decodeStandardPadded(bytes: bytes),
                  String(validating: decoded, as: UTF8.self) != nil,
                  let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            return (String(decoding: decoded[..<colon], as: UTF8.self), String(decoding: decoded[(colon + 1)...], as: UTF8.self))
        }
        guard let parsed else { throw OAuthError.invalidClient("The Basic credentials are malformed.") }
        (user, password) = parsed
    }

    /// RFC 6749 §2.3.1 form-encodes both parts; most Kinvey SDKs do not. Accept either spelling.
    var userCandidates: [String] { Self.candidates(user) }
    var passwordCandidates: [String] { Self.candidates(password) }

    private static func candidates(_ text: String) -> [String] {
        // A byte scan: `String.contains(_:)` with a string argument walks Characters, and every
        // client-authenticated request comes through here.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }),
              let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
              decoded != text else { return [text] }
        return [text, decoded]
    }
}

/// A client after client authentication.
public struct AuthenticatedClient: Sendable {
    public let client: ResolvedClient
    /// True when the client proved its secret (Basic or `client_secret`).
    public let authenticated: Bool
    /// The JWK thumbprint of the key this token request proved with a DPoP proof (RFC 9449), nil
    /// without one: the new tokens are bound to it (docs/dpop.md).
    public var dpopJkt: String? = nil
}

/// Client identification and authentication, exactly as in
/// docs/protocol.md, "Client identification and authentication".
public struct ClientAuthenticator: Sendable {
    let directory: ClientDirectory

    public init(directory: ClientDirectory) { self.directory = directory }

    /// Identifies the client from the body's `client_id` and/or the Basic user, and checks a
    /// secret when one is presented. The Basic user may be the bare appKey while the body's
    /// `client_id` names an auth service. A wrong secret is always `invalid_client` (401).
    public func authenticate(_ parameters: OAuthParameters, basic: BasicCredentials?) throws -> AuthenticatedClient {
        let bodyClientId = parameters["client_id"]
        let client: ResolvedClient
        if let basic {
            if let bodyClientId {
                client = try resolve(bodyClientId)
                guard basic.userCandidates.contains(where: { $0 == bodyClientId || $0 == client.appKey }) else {
                    throw OAuthError.invalidClient("The Basic credentials name a different client than client_id.")
                }
            } else {
                guard let match = basic.userCandidates.lazy.compactMap({ directory.resolve($0) }).first else {
                    throw OAuthError.invalidClient("Unknown client.")
                }
                client = match
            }
        } else {
            guard let bodyClientId else { throw OAuthError.invalidClient("Client identification is required (client_id or HTTP Basic).") }
            client = try resolve(bodyClientId)
        }
        var authenticated = false
        if let basic {
            try verifySecret(basic.passwordCandidates, of: client)
            authenticated = true
        }
        if let secret = parameters["client_secret"] {
            try verifySecret([secret], of: client)
            authenticated = true
        }
        return AuthenticatedClient(client: client, authenticated: authenticated)
    }

    /// Identifies a client without authenticating it (authorization endpoint).
    public func resolve(_ clientId: String) throws -> ResolvedClient {
        guard let client = directory.resolve(clientId) else { throw OAuthError.invalidClient("Unknown client.") }
        return client
    }

    private func verifySecret(_ candidates: [String], of client: ResolvedClient) throws {
        guard let expected = client.environment.appSecret else {
            throw OAuthError.invalidClient("This client has no secret; use PKCE instead.")
        }
        var matched = false
        for candidate in candidates where Secrets.constantTimeEquals(candidate, expected) { matched = true }
        guard matched else { throw OAuthError.invalidClient("Client authentication failed.") }
    }
}
