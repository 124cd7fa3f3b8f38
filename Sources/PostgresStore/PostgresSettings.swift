import Foundation
import PostgresNIO

/// What a `postgres://user:password@host:port/database?...` storage URL asks for.
///
/// Query parameters (all optional):
/// - `pool` — most connections this process opens (default 10);
/// - `statement_timeout` — seconds a statement may run before the server cancels it (default 5);
///   also bounds how long a request waits for a free connection;
/// - `connect_timeout` — seconds to establish a connection (default 5);
/// - `sslmode` — `disable`; `prefer` (default: TLS when the server offers it, certificate not
///   checked — as libpq's `prefer`, so a stock server with a self-signed certificate works);
///   `require` (TLS, and the server certificate is checked against the system trust store and the
///   host name — stricter than libpq's `require`); `verify-full` and `verify-ca` are aliases of `require`.
public struct PostgresSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var poolSize: Int
    public var statementTimeout: Int
    public var connectTimeout: Int
    public var sslMode: SSLMode
    /// `sslmode` as written in the URL (`prefer` when absent).
    public var sslModeName: String

    public enum SSLMode: String, Sendable, Equatable { case disable, prefer, require }

    /// A URL that cannot be used, with the reason (never the password).
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(url: String) throws {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw Invalid(description: "storage URL must look like postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else { throw Invalid(description: "storage URL has no host") }
        guard let user = components.user, !user.isEmpty else { throw Invalid(description: "storage URL has no user name") }
        self.host = host
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : (path.removingPercentEncoding ?? path)
        poolSize = 10
        statementTimeout = 5
        connectTimeout = 5
        sslMode = .prefer
        sslModeName = "prefer"
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "pool": poolSize = try Self.positive(value, name: "pool", maximum: 1000)
            case "statement_timeout": statementTimeout = try Self.positive(value, name: "statement_timeout", maximum: 3600)
            case "connect_timeout": connectTimeout = try Self.positive(value, name: "connect_timeout", maximum: 600)
            case "sslmode":
                let mode = value == "verify-full" || value == "verify-ca" ? "require" : value
                guard let parsed = SSLMode(rawValue: mode) else {
                    throw Invalid(description: "storage URL: sslmode must be disable, prefer, require, verify-ca or verify-full (got \(value))")
                }
                sslMode = parsed
                sslModeName = value
            default:
                throw Invalid(description: "storage URL: unknown parameter \(item.name) (known: pool, statement_timeout, connect_timeout, sslmode)")
            }
        }
    }

    private static func positive(_ text: String, name: String, maximum: Int) throws -> Int {
        guard let value = Int(text), value >= 1, value <= maximum else {
            throw Invalid(description: "storage URL: \(name) must be a whole number from 1 to \(maximum) (got \(text))")
        }
        return value
    }

    /// A warning when the database is on another machine and the URL does not ask for a
    /// verified connection (docs/security.md, rule 16): without `sslmode=verify-full` (or
    /// `verify-ca`) a reader of the URL cannot tell that nobody on the path can read or change what
    /// the broker stores. Nil on loopback or with verify-full / verify-ca.
    public var unverifiedRemoteWarning: String? {
        guard sslModeName != "verify-full", sslModeName != "verify-ca", !Self.isLoopback(host) else { return nil }
        return "PostgreSQL at \(location) is reached with sslmode=\(sslModeName); use sslmode=verify-full "
            + "(or verify-ca) for a database on another host"
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.") || bare.hasPrefix("/")
    }

    /// `host:port/database`, for messages.
    public var location: String { "\(host):\(port)/\(database)" }

    /// The same server and credentials with another database (tests create one database each).
    public func with(database: String) -> PostgresSettings {
        var copy = self
        copy.database = database
        return copy
    }

    /// `prefer`: encrypted, but any certificate is accepted (opportunistic, like libpq).
    static var unverifiedTLS: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }

    /// The pool's configuration: size, timeouts, and the server-side statement timeout.
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(Self.unverifiedTLS)
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: tls)
        configuration.options.maximumConnections = poolSize
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// One connection's configuration (migrations and the reachability check at start).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: Self.unverifiedTLS))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                             database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(Int64(connectTimeout))
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    private var startupParameters: [(String, String)] {
        [("statement_timeout", "\(statementTimeout * 1000)"), ("application_name", "idconnect")]
    }
}
