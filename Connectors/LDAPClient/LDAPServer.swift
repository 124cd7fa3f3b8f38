/// Where and how to reach one directory: the URL (`ldap://` or `ldaps://`), StartTLS, the CA that
/// signs the server certificate, and the timeouts every call is bounded by.
public struct LDAPServer: Sendable, Equatable {
    public var url: String
    /// Upgrade a plain `ldap://` connection with StartTLS before anything is sent.
    public var startTLS: Bool
    /// PEM file with the CA certificate(s) to trust; `nil` uses the system's trust store.
    public var caFile: String?
    /// Milliseconds to establish the TCP (and TLS) connection.
    public var connectTimeoutMs: Int
    /// Milliseconds one operation (bind, search) may take.
    public var operationTimeoutMs: Int
    /// How many idle connections the pool keeps.
    public var maxIdle: Int

    public init(url: String, startTLS: Bool = false, caFile: String? = nil, connectTimeoutMs: Int = 5_000,
                operationTimeoutMs: Int = 15_000, maxIdle: Int = 8) {
        self.url = url
        self.startTLS = startTLS
        self.caFile = caFile
        self.connectTimeoutMs = connectTimeoutMs
        self.operationTimeoutMs = operationTimeoutMs
        self.maxIdle = maxIdle
    }

    public var usesTLS: Bool { startTLS || url.lowercased().hasPrefix("ldaps://") }
}

/// A DN and password to bind with.
public struct LDAPCredentials: Sendable, Equatable {
    public var dn: String
    public var password: String

    public init(dn: String, password: String) {
        self.dn = dn
        self.password = password
    }
}

/// One entry of a search result: its DN and the values of the attributes that were asked for,
/// keyed by the lower-cased attribute name.
public struct LDAPEntry: Sendable, Equatable {
    public var dn: String
    public var attributes: [String: [String]]

    public init(dn: String, attributes: [String: [String]]) {
        self.dn = dn
        self.attributes = attributes
    }

    public func values(_ attribute: String) -> [String] { attributes[attribute.lowercased()] ?? [] }
    public func first(_ attribute: String) -> String? { values(attribute).first }
}

/// Search scope (RFC 4511 §4.5.1.2).
public enum LDAPScope: Int32, Sendable {
    case base = 0, oneLevel = 1, subtree = 2
}
