import ConnectorHTTP
import Foundation
import IdentityCore
import NIOCore

/// Builds `oauth2` and `openid-connect` connectors (docs/connectors/oauth2-oidc.md).
///
/// ```yaml
/// provider:
///   type: openid-connect
///   options:
///     issuerId: https://login.example.com          # discovery: <issuerId>/.well-known/openid-configuration
///     clientId: identity-connect
///     clientSecret: ${env:OIDC_CLIENT_SECRET}
///     scope: openid profile email
/// ```
///
/// `oauth2` needs `remoteService` (token endpoint) and, for `authorization_code`, `grantEndpoint`.
public struct OAuthConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["oauth2", "openid-connect"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        let options = try OAuthOptions.read(settings, issuer: context.issuer)
        let upstream = OAuthUpstream(options: options, http: UpstreamHTTP(timeout: .seconds(Int64(options.timeout))), clock: context.clock)
        switch options.grantType {
        case .authorizationCode: return OAuthCodeConnector(upstream: upstream)
        case .password: return OAuthPasswordConnector(upstream: upstream)
        }
    }
}
