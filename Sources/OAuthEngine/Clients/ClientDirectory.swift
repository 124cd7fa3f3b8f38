import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// An auth service ready for use: its configuration and its connector. A class: every request
/// passes it around inside a `ResolvedClient`, and copying the configuration structs field by
/// field cost more than the lookups themselves; it never changes once built.
public final class ResolvedAuthService: Sendable {
    public let service: AuthService
    public let connector: any Connector
    /// Stable namespace for subjects: `org:<id>/<service>` or `env:<appKey>/<service>`.
    public let namespace: String

    public var id: String { service.id }

    public init(service: AuthService, connector: any Connector, namespace: String) {
        self.service = service
        self.connector = connector
        self.namespace = namespace
    }
}

/// An environment with the auth services it can use (its own first, then its organization's).
/// A class for the same reason as ``ResolvedAuthService``; it never changes once built.
public final class EnvironmentEntry: Sendable {
    public let environment: Environment
    public let services: [String: ResolvedAuthService]
    public let defaultService: ResolvedAuthService?
    /// The APIs its tokens may be for: the environment's declarations, then the organization's
    /// for scopes the environment does not declare (docs/api-resources.md).
    public let apiResources: [APIResource]
    /// `clientAuth.jwks`, parsed once: the keys of a `private_key_jwt` client.
    public let clientKeys: JSONWebKeySet?

    public init(environment: Environment, services: [String: ResolvedAuthService], defaultService: ResolvedAuthService?,
                apiResources: [APIResource] = [], clientKeys: JSONWebKeySet? = nil) {
        self.environment = environment
        self.services = services
        self.defaultService = defaultService
        self.apiResources = apiResources
        self.clientKeys = clientKeys
    }
}

/// A `client_id` resolved to an environment and one auth service
/// (docs/protocol.md, "Client identification and authentication").
public struct ResolvedClient: Sendable {
    /// The `client_id` as the client sent it (`appKey` or `appKey.authServiceId`).
    public let clientId: String
    public let entry: EnvironmentEntry
    public let authService: ResolvedAuthService
    /// The registered app instance when `clientId` is a `dyn~` id
    /// (docs/protocol.md, "Mobile app instances"), else nil.
    public let instance: RegisteredClient?

    public init(clientId: String, entry: EnvironmentEntry, authService: ResolvedAuthService, instance: RegisteredClient? = nil) {
        self.clientId = clientId
        self.entry = entry
        self.authService = authService
        self.instance = instance
    }

    public var environment: Environment { entry.environment }
    public var appKey: String { entry.environment.appKey }
    public var service: AuthService { authService.service }
    /// Where this client may receive codes: an instance's own list, else its auth service's.
    public var redirectURIs: [String] { instance?.redirectURIs ?? service.redirectURIs }
    /// The browser origins that may read this client's answers (CORS): an instance's own
    /// `web_origins`, else its auth service's `webOrigins` (an instance does not inherit them).
    public var webOrigins: [String] { instance?.allowedWebOrigins ?? service.webOrigins }

    /// True when `other` names the same environment and auth service (`kid` and `kid.svc` can be the same client).
    /// An app instance is only ever the same client as itself.
    public func isSameClient(as other: ResolvedClient) -> Bool {
        if instance != nil || other.instance != nil { return clientId == other.clientId }
        return appKey == other.appKey && authService.id == other.authService.id
    }
}

/// Every environment and auth service of the loaded configuration, with connectors built.
public struct ClientDirectory: Sendable {
    public let environments: [String: EnvironmentEntry]
    /// Every origin some auth service lists in `webOrigins` (CORS preflights name no client).
    public let webOrigins: Set<String>

    public init(environments: [String: EnvironmentEntry]) {
        self.environments = environments
        webOrigins = Set(environments.values.flatMap { entry in entry.services.values.flatMap(\.service.webOrigins) })
    }

    /// Resolves `appKey` (default auth service) or `appKey.authServiceId`.
    public func resolve(_ clientId: String) -> ResolvedClient? {
        guard clientId.utf8.count <= 512, let id = ClientID(parsing: clientId) else { return nil }
        return resolve(id, as: clientId)
    }

    /// The client `id` names; `text` is the id as the client sent it (kept as its `clientId`).
    public func resolve(_ id: ClientID, as text: String? = nil) -> ResolvedClient? {
        guard let entry = environments[id.appKey] else { return nil }
        let service = id.authServiceId.map { entry.services[$0] } ?? entry.defaultService
        guard let service else { return nil }
        return ResolvedClient(clientId: text ?? id.description, entry: entry, authService: service)
    }

    /// A registered instance as a client of its environment's default auth service; nil when
    /// the configuration no longer has that environment or default.
    public func resolve(instance: RegisteredClient) -> ResolvedClient? {
        guard let entry = environments[instance.appKey], let service = entry.defaultService else { return nil }
        return ResolvedClient(clientId: instance.clientId, entry: entry, authService: service, instance: instance)
    }

    /// The auth service `serviceId` as `appKey` sees it.
    public func authService(appKey: String, serviceId: String) -> ResolvedAuthService? {
        environments[appKey]?.services[serviceId]
    }

    /// Builds a connector for every auth service. Every problem (unavailable provider types,
    /// bad connector options) is collected and thrown as ``ConfigProblems``.
    public static func build(config: BrokerConfig, registry: ConnectorRegistry,
                             context: (AuthService) -> ConnectorContext) throws -> ClientDirectory {
        let problems = ProblemSink()
        func make(_ service: AuthService, namespace: String) -> ResolvedAuthService? {
            // Unknown types were already reported by the configuration reader.
            guard ConnectorRegistry.specifiedTypes.contains(service.provider.type) else { return nil }
            guard let factory = registry.factory(for: service.provider.type) else {
                problems.add(service.provider.problem("type", "provider type '\(service.provider.type)' is not available in this build"))
                return nil
            }
            do {
                let connector = try factory.makeConnector(service.provider, context: context(service))
                if service.qrLogin != nil, !(connector is any PasswordConnector) {
                    problems.add(ConfigProblem(location: service.location, keyPath: "\(service.keyPath).qrLogin",
                                               reason: "QR-code sign-in is offered on the broker's login page, which "
                                                   + "'\(service.provider.type)' does not use (static, custom, ldap, active-directory do)"))
                }
                return ResolvedAuthService(service: service, connector: connector, namespace: namespace)
            } catch let error as ConfigProblems {
                problems.append(contentsOf: error.problems)
            } catch {
                problems.add(service.provider.problem("type", "connector could not be created: \(error)"))
            }
            return nil
        }
        var organizationServices: [String: [String: ResolvedAuthService]] = [:]
        for organization in config.organizations {
            var services: [String: ResolvedAuthService] = [:]
            for service in organization.authServices {
                services[service.id] = make(service, namespace: "org:\(organization.id)/\(service.id)")
            }
            organizationServices[organization.id] = services
        }
        var environments: [String: EnvironmentEntry] = [:]
        for environment in config.environments {
            var services = environment.organization.flatMap { organizationServices[$0] } ?? [:]
            for service in environment.authServices {
                services[service.id] = make(service, namespace: "env:\(environment.appKey)/\(service.id)")
            }
            let defaultService = environment.defaultAuthService.flatMap { services[$0] }
                ?? (services.count == 1 ? services.values.first : nil)
            let organizationResources = config.organizations.first { $0.id == environment.organization }?.apiResources ?? []
            let own = Set(environment.apiResources.map(\.scope))
            environments[environment.appKey] = EnvironmentEntry(
                environment: environment, services: services, defaultService: defaultService,
                apiResources: environment.apiResources + organizationResources.filter { !own.contains($0.scope) },
                clientKeys: environment.clientAuth?.jwks.flatMap { clientKeys($0, of: environment, problems: problems) })
        }
        try problems.throwIfAny()
        return ClientDirectory(environments: environments)
    }

    /// A `private_key_jwt` client's configured JWK set: public keys the JOSE module can use,
    /// and nothing private (a private key in the broker's configuration is a leaked one).
    private static func clientKeys(_ jwks: String, of environment: Environment, problems: ProblemSink) -> JSONWebKeySet? {
        func problem(_ reason: String) -> JSONWebKeySet? {
            problems.add(ConfigProblem(location: environment.location, keyPath: "\(environment.keyPath).clientAuth.jwks", reason: reason))
            return nil
        }
        guard case .object(let document)? = JSONValue(parsing: Data(jwks.utf8)), case .array(let entries)? = document["keys"] else {
            return problem("must be the JSON text of a JWK set ({\"keys\": [...]})")
        }
        let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k"]
        if entries.contains(where: { entry in
            guard case .object(let fields) = entry else { return false }
            return privateMembers.contains { fields[$0] != nil }
        }) {
            return problem("holds private key material: configure the client's public keys only")
        }
        guard let set = JSONWebKeySet(parsing: Data(jwks.utf8)),
              set.keys.contains(where: { key in ClientAssertion.algorithms.contains(where: key.fits) }) else {
            return problem("holds no usable public key (RSA of at least 2048 bits, or EC P-256/P-384)")
        }
        return set
    }
}
