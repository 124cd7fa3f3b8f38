import ConnectorHTTP
import Foundation
import IdentityCore
import NIOCore

/// Builds `custom` (AuthLink) connectors.
///
/// ```yaml
/// provider:
///   type: custom
///   remoteService: https://authlink.example.com/login
///   options:
///     refreshUrl: https://authlink.example.com/refresh   # optional
///     sharedSecret: ${env:AUTHLINK_KEY}                   # optional, sent as X-Auth-Key
///     timeout: 15                                         # seconds, total per call
/// ```
public struct AuthLinkConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["custom"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        let problems = ProblemSink()
        let loginURL = settings.remoteService
        if loginURL == nil || ConfigReader.absoluteURL(loginURL!, schemes: ["http", "https"]) == nil {
            problems.add(settings.problem("remoteService", "custom needs remoteService: the AuthLink's http(s) login URL"))
        }
        var refreshURL: String?
        var sharedSecret: String?
        var timeout = 15
        if let options = settings.options {
            let reader = ConfigReader(options, problems: problems)
            refreshURL = reader.url("refreshUrl")?.absoluteString
            sharedSecret = reader.string("sharedSecret")
            timeout = reader.positiveInt("timeout") ?? timeout
            if timeout > 300 { reader.problem("timeout", "must be at most 300 seconds") }
            reader.finish()
        }
        if let authentication = settings.authentication {
            problems.add(authentication, "custom does not use authentication; use options.sharedSecret")
        }
        try problems.throwIfAny()
        return AuthLinkConnector(loginURL: loginURL!, refreshURL: refreshURL, sharedSecret: sharedSecret,
                                 http: UpstreamHTTP(timeout: .seconds(Int64(timeout))), clock: context.clock)
    }
}
