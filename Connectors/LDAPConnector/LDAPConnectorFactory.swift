import IdentityCore

/// Builds `ldap` and `active-directory` connectors (docs/connectors/ldap.md;
/// docs/connectors/active-directory.md).
///
/// ```yaml
/// provider:
///   type: ldap
///   remoteService: ldaps://ldap.example.com:636
///   authentication: { username: "cn=readonly,dc=example,dc=com", password: ${env:LDAP_BIND_PW} }
///   options:
///     baseDn: ou=people,dc=example,dc=com
///     userFilter: (uid={username})
///     groupBaseDn: ou=groups,dc=example,dc=com
///     caFile: /etc/idconnect/ldap-ca.pem
/// ```
public struct LDAPConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["ldap", "active-directory"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        let kind: DirectoryOptions.Kind = settings.type == "active-directory" ? .activeDirectory : .ldap
        let options = try DirectoryOptions.read(settings, kind: kind)
        return DirectoryConnector(options: options, blocking: context.networkBlocking, clock: context.clock,
                                  logger: context.logger)
    }
}
