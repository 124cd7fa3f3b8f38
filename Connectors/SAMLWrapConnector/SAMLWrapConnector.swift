import ConnectorHTTP
import Foundation
import IdentityCore

/// The `saml-wrap` connector: OAuth WRAP v0.9 username/password profile (§5.1). The broker posts
/// `wrap_name`, `wrap_password`, `wrap_scope`; `wrap_access_token` and
/// `wrap_access_token_expires_in` become the upstream token
/// (docs/connectors/saml-wrap.md, "The exchange"). A `wrap_refresh_token`, when the server issues
/// one, renews it.
final class SAMLWrapConnector: PasswordConnector, RefreshingConnector {
    let url: String
    let scope: String?
    let http: UpstreamHTTP
    let clock: any BrokerClock

    init(url: String, scope: String?, http: UpstreamHTTP, clock: any BrokerClock) {
        self.url = url
        self.scope = scope
        self.http = http
        self.clock = clock
    }

    func login(_ credentials: PasswordCredentials) async throws -> LoginResult {
        guard !credentials.username.isEmpty, !credentials.password.isEmpty else { return .rejected(LoginRejection(.invalidCredentials)) }
        var fields = [("wrap_name", credentials.username), ("wrap_password", credentials.password)]
        if let scope { fields.append(("wrap_scope", scope)) }
        let answer = try await http.postForm(url, fields, what: "WRAP service")
        guard let token = try read(answer) else { return .rejected(LoginRejection(.invalidCredentials)) }
        return .authenticated(ConnectorIdentity(userId: credentials.username, upstream: token))
    }

    func refresh(userId: String, upstream: UpstreamToken) async throws -> RefreshOutcome {
        guard let refreshToken = upstream.refreshToken else {
            return .ended(reason: "The WRAP token expired and the service issued no refresh token; sign in again.")
        }
        let answer = try await http.postForm(url, [("wrap_refresh_token", refreshToken)], what: "WRAP service")
        guard var token = try read(answer) else { return .ended(reason: "The WRAP service refused to renew the token.") }
        if token.refreshToken == nil { token.refreshToken = refreshToken }
        return .refreshed(token, attributes: nil)
    }

    /// The token of a 200 answer; nil for a refusal (401); throws for anything else.
    private func read(_ answer: UpstreamHTTP.Answer) throws -> UpstreamToken? {
        switch answer.status {
        case 200:
            guard let text = String(data: answer.body, encoding: .utf8) else {
                throw ConnectorFailure(.invalidResponse, "The WRAP service answered with a non-text body.")
            }
            let fields = Self.decodeForm(text)
            guard let token = fields["wrap_access_token"], !token.isEmpty else {
                throw ConnectorFailure(.invalidResponse, "The WRAP service answered without wrap_access_token.")
            }
            let lifetime = fields["wrap_access_token_expires_in"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil }
            return UpstreamToken(token: token, refreshToken: fields["wrap_refresh_token"].flatMap { $0.isEmpty ? nil : $0 },
                                 expiresAt: lifetime.map { clock.now().addingTimeInterval($0) })
        case 401, 403:
            return nil
        case 500...599:
            throw ConnectorFailure(.unavailable, "The WRAP service is temporarily unavailable.", debug: "HTTP \(answer.status)")
        default:
            throw ConnectorFailure(.invalidResponse, "The WRAP service answered outside its protocol.", debug: "HTTP \(answer.status)")
        }
    }

    static func decodeForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            let value = parts.count > 1 ? (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "") : ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}

/// Builds `saml-wrap` connectors.
///
/// ```yaml
/// provider:
///   type: saml-wrap
///   remoteService: https://sts.example.com/WRAPv0.9/
///   options: { scope: "http://crm.example.com/", timeout: 15 }
/// ```
public struct SAMLWrapConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["saml-wrap"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        let problems = ProblemSink()
        let url = settings.remoteService
        if url == nil || ConfigReader.absoluteURL(url!, schemes: ["http", "https"]) == nil {
            problems.add(settings.problem("remoteService", "saml-wrap needs remoteService: the WRAP access token URL"))
        }
        var scope: String?
        var timeout = 15
        if let options = settings.options {
            let reader = ConfigReader(options, problems: problems)
            scope = reader.string("scope")
            timeout = reader.positiveInt("timeout") ?? timeout
            reader.finish()
        }
        if let authentication = settings.authentication { problems.add(authentication, "saml-wrap does not use authentication") }
        try problems.throwIfAny()
        return SAMLWrapConnector(url: url!, scope: scope, http: UpstreamHTTP(timeout: .seconds(Int64(timeout))), clock: context.clock)
    }
}
