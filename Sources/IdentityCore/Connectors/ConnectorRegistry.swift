import Foundation
import Logging

/// What a connector factory gets besides its configuration.
public struct ConnectorContext: Sendable {
    /// The broker's issuer URL (for callback URLs and SAML entity ids).
    public var issuer: String
    /// The auth service this connector serves.
    public var authServiceId: String
    public var clock: any BrokerClock
    public var logger: Logger
    public var blocking: any BlockingWorkRunner
    /// For calls that block waiting on the network (libldap): a separate, larger pool, so an
    /// identity source that stops answering never holds the threads CPU work (password hashing,
    /// XML signatures) needs. Defaults to `blocking`.
    public var networkBlocking: any BlockingWorkRunner
    /// Shared resources the application hands to connectors (HTTP client, ...), looked up by type.
    public var resources: ConnectorResources

    public init(issuer: String, authServiceId: String, clock: any BrokerClock, logger: Logger,
                blocking: any BlockingWorkRunner, networkBlocking: (any BlockingWorkRunner)? = nil,
                resources: ConnectorResources = .init()) {
        self.networkBlocking = networkBlocking ?? blocking
        self.issuer = issuer
        self.authServiceId = authServiceId
        self.clock = clock
        self.logger = logger
        self.blocking = blocking
        self.resources = resources
    }
}

/// A small typed bag of shared objects, so the core needs no dependency on what connectors use.
public struct ConnectorResources: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public mutating func set<T: Sendable>(_ value: T) { values[ObjectIdentifier(T.self)] = value }
    public func get<T: Sendable>(_ type: T.Type) -> T? { values[ObjectIdentifier(type)] as? T }
}

/// Builds connectors of one or more provider types. Factories validate their own `options`
/// and throw ``ConfigProblems`` naming every problem with its key path.
public protocol ConnectorFactory: Sendable {
    var providerTypes: [String] { get }
    func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector
}

/// Maps provider type strings to factories. The executable fills it; the core imports no connector.
public struct ConnectorRegistry: Sendable {
    /// Every provider type listed in docs/configuration.md, "provider", whether or not this build
    /// registers it.
    public static let specifiedTypes: Set<String> = [
        "static", "custom", "ldap", "active-directory", "saml-redirect", "saml-post",
        "oauth2", "openid-connect", "saml-wrap",
    ]

    private var factories: [String: any ConnectorFactory] = [:]

    public init(_ factories: [any ConnectorFactory] = []) {
        for factory in factories { register(factory) }
    }

    public mutating func register(_ factory: any ConnectorFactory) {
        for type in factory.providerTypes { factories[type] = factory }
    }

    public func factory(for type: String) -> (any ConnectorFactory)? { factories[type] }

    public var registeredTypes: [String] { factories.keys.sorted() }
}
