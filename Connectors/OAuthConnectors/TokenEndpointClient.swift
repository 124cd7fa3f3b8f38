import ConnectorHTTP
import Foundation
import IdentityCore
import JOSE

/// Calls the upstream token endpoint (RFC 6749 §4.1.3, §4.3, §6) with the configured client
/// authentication, and sorts its answers into tokens, refusals and failures.
struct TokenEndpointClient: Sendable {
    let clientId: String
    let clientSecret: String?
    let includeClientId: Bool
    let includeClientSecret: Bool
    /// `clientAuth: private_key_jwt`: signs a fresh assertion for every request.
    let assertionKey: SigningKey?
    let clock: any BrokerClock
    let http: UpstreamHTTP

    /// A successful token response.
    struct Tokens: Sendable {
        var accessToken: String
        var refreshToken: String?
        var expiresIn: TimeInterval?
        var idToken: String?
        /// The whole response, for a user id taken from it (`userIdAttribute`).
        var response: [String: JSONValue]
    }

    /// What the endpoint said.
    enum Outcome: Sendable {
        case tokens(Tokens)
        /// RFC 6749 §5.2 error the user or the grant is to blame for (`invalid_grant`, ...).
        case refused(error: String, description: String?)
    }

    /// Client authentication (docs/connectors/oauth2-oidc.md, "Options"): with `private_key_jwt`
    /// a signed assertion for `url` (RFC 7523: `iss` and `sub` the client id, `aud` the token
    /// endpoint, a new `jti`, valid for a minute) and `client_id`; else the secret in the body
    /// when `includeClientSecretInTokenRequest`, HTTP Basic otherwise; `client_id` in the body when
    /// `includeClientIdInTokenRequest`, when the secret goes in the body, or for a public client.
    func authentication(for url: String) throws -> (fields: [(String, String)], headers: [(String, String)]) {
        var fields: [(String, String)] = []
        var headers: [(String, String)] = []
        if let assertionKey {
            let now = Int(clock.now().timeIntervalSince1970)
            let claims: [String: Any] = ["iss": clientId, "sub": clientId, "aud": url, "jti": Secrets.randomToken(),
                                         "iat": now, "exp": now + 60]
            let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
            fields.append(("client_id", clientId))
            fields.append(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"))
            fields.append(("client_assertion", try CompactJWS.sign(payload: payload, type: "JWT", key: assertionKey)))
        } else if let clientSecret {
            if includeClientSecret {
                fields.append(("client_id", clientId))
                fields.append(("client_secret", clientSecret))
            } else {
                // RFC 6749 §2.3.1: both parts form-encoded before Base64.
                let pair = UpstreamHTTP.formEncode(clientId) + ":" + UpstreamHTTP.formEncode(clientSecret)
                headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
                if includeClientId { fields.append(("client_id", clientId)) }
            }
        } else {
            fields.append(("client_id", clientId))
        }
        return (fields, headers)
    }

    func request(_ url: String, grant: [(String, String)]) async throws -> Outcome {
        let auth = try authentication(for: url)
        let answer = try await http.postForm(url, grant + auth.fields, headers: auth.headers, what: "identity provider's token endpoint")
        return try Self.interpret(answer)
    }

    /// 200 with an access token → tokens; 400/401 with an OAuth error → refused; 5xx → unavailable;
    /// anything else → nonsense.
    static func interpret(_ answer: UpstreamHTTP.Answer) throws -> Outcome {
        let object: [String: JSONValue]? = if case .object(let fields)? = answer.json { fields } else { nil }
        switch answer.status {
        case 200:
            guard let object, let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
                throw ConnectorFailure(.invalidResponse, "The identity provider sent a token response without an access token.")
            }
            if let type = object["token_type"]?.stringValue, type.lowercased() != "bearer" {
                throw ConnectorFailure(.invalidResponse, "The identity provider issued a token of an unsupported type.", debug: type)
            }
            return .tokens(Tokens(accessToken: accessToken, refreshToken: object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                                  expiresIn: seconds(object["expires_in"]), idToken: object["id_token"]?.stringValue, response: object))
        case 400, 401, 403:
            guard let error = object?["error"]?.stringValue else {
                throw ConnectorFailure(.invalidResponse, "The identity provider's token endpoint refused the request.",
                                       debug: "HTTP \(answer.status) without an OAuth error")
            }
            if error == "temporarily_unavailable" {
                throw ConnectorFailure(.unavailable, "The identity provider is temporarily unavailable.")
            }
            return .refused(error: error, description: object?["error_description"]?.stringValue)
        case 500...599:
            throw ConnectorFailure(.unavailable, "The identity provider is temporarily unavailable.", debug: "token endpoint HTTP \(answer.status)")
        default:
            throw ConnectorFailure(.invalidResponse, "The identity provider's token endpoint answered unexpectedly.",
                                   debug: "HTTP \(answer.status)")
        }
    }

    /// `expires_in` as a number or a numeric string (some providers send strings).
    static func seconds(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .int(let number)?: number > 0 ? TimeInterval(number) : nil
        case .double(let number)?: number > 0 ? number : nil
        case .string(let text)?: TimeInterval(text).flatMap { $0 > 0 ? $0 : nil }
        default: nil
        }
    }
}
