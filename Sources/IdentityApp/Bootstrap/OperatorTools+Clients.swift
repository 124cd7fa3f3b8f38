import Foundation
import IdentityConfig

/// A client the configuration defines: an environment's App Key with one of its auth services
/// (`client_id` `appKey.authServiceId`, or the bare `appKey` for the default auth service).
public struct ConfiguredClient: Sendable, Equatable {
    public var clientId: String
    public var appKey: String
    public var authServiceId: String
    public var authServiceName: String?
    /// The connector type (`static`, `ldap`, `saml-post`, …).
    public var connector: String
    /// Where the auth service is defined: `environment` or `organization <id>`.
    public var definedIn: String
    public var redirectURIs: [String]
}

extension OperatorTools {
    /// The clients `console-config/` defines, of one environment or of all (`idconnect clients
    /// list`): per environment its own auth services and its organization's (the environment's
    /// own win over an organization's of the same id, as at sign-in), the default one also under
    /// the bare App Key, listed first. Throws when `appKey` names no configured environment.
    public func configuredClients(appKey: String?) throws -> [ConfiguredClient] {
        if let appKey, !config.environments.contains(where: { $0.appKey == appKey }) {
            throw OperatorToolError("No environment with appKey '\(appKey)' is configured.")
        }
        var clients: [ConfiguredClient] = []
        for environment in config.environments where appKey == nil || environment.appKey == appKey {
            var services: [String: (AuthService, String)] = [:]
            if let organization = config.organizations.first(where: { $0.id == environment.organization }) {
                for service in organization.authServices { services[service.id] = (service, "organization \(organization.id)") }
            }
            for service in environment.authServices { services[service.id] = (service, "environment") }
            let defaultId = environment.defaultAuthService ?? (services.count == 1 ? services.keys.first : nil)
            let listed = services.sorted { $0.key < $1.key }.map { id, entry in
                ConfiguredClient(clientId: "\(environment.appKey).\(id)", appKey: environment.appKey, authServiceId: id,
                                 authServiceName: entry.0.name, connector: entry.0.provider.type, definedIn: entry.1,
                                 redirectURIs: entry.0.redirectURIs)
            }
            // The bare App Key first: it is what most apps send.
            if var bare = listed.first(where: { $0.authServiceId == defaultId }) {
                bare.clientId = environment.appKey
                clients.append(bare)
            }
            clients += listed
        }
        return clients
    }
}
