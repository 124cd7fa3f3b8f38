import Foundation
import IdentityConfig
import StoreContracts

/// `idconnect serve` flags (docs/operations.md, "Command line"). Unset flags fall back to the
/// config file, then to defaults.
public struct ServeOptions: Sendable {
    public var configDirectory: String
    public var host: String?
    public var port: Int?
    public var issuer: String?
    public var storage: String?
    /// `--dev`: a trial run, where listening on every interface without an issuer is allowed and
    /// the issuer becomes `http://localhost:<port>` (the container's demo, docs/operations.md).
    public var development: Bool

    public init(configDirectory: String = "./console-config", host: String? = nil, port: Int? = nil,
                issuer: String? = nil, storage: String? = nil, development: Bool = false) {
        self.configDirectory = configDirectory
        self.host = host
        self.port = port
        self.issuer = issuer
        self.storage = storage
        self.development = development
    }
}

/// The effective settings after flags, file and defaults are combined.
public struct BrokerSettings: Sendable {
    public var host: String
    public var port: Int
    public var issuer: String
    public var storage: StorageLocation
    /// The admin listener of `server.adminPort`, when configured.
    public var admin: AdminListener?

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080

    public init(options: ServeOptions, config: BrokerConfig) throws {
        host = options.host ?? config.server.host ?? Self.defaultHost
        port = options.port ?? config.server.port ?? Self.defaultPort
        guard (0...65535).contains(port) else { throw BootstrapError("--port must be between 0 and 65535") }
        // The default issuer has the scheme the broker serves: https when it terminates TLS itself.
        let scheme = config.server.tls == nil ? "http" : "https"
        let issuerText = try options.issuer ?? config.server.issuer ?? Self.defaultIssuer(
            scheme: scheme, host: host, port: port, development: options.development)
        guard let url = URLComponents(string: issuerText), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", !(url.host ?? "").isEmpty, url.query == nil, url.fragment == nil else {
            throw BootstrapError("the issuer must be an http(s) URL without query or fragment, got '\(issuerText)'")
        }
        var issuer = issuerText
        while issuer.hasSuffix("/") { issuer.removeLast() }
        self.issuer = issuer
        let storageText = options.storage ?? config.storage ?? StorageLocation.defaultValue
        guard let storage = StorageLocation(storageText) else {
            throw BootstrapError("storage must be sqlite:PATH or postgres://..., got '\(StorageLocation.redactedInput(storageText))'")
        }
        self.storage = storage
        admin = config.server.admin
        if let admin, admin.port == port, port != 0 {
            throw BootstrapError("server.adminPort \(admin.port) is the broker's own port; choose another one")
        }
    }

    static func hostForURL(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// The issuer when none is configured: the listening address, which names the broker only
    /// when it is a loopback address. On any other address (`0.0.0.0` in a container, a LAN
    /// address) tokens would name an address clients do not use, so the start is refused, except
    /// with `--dev`, where the issuer is `localhost` (what a browser on the same machine types).
    static func defaultIssuer(scheme: String, host: String, port: Int, development: Bool) throws -> String {
        if isLoopback(host) { return "\(scheme)://\(hostForURL(host)):\(port)" }
        if development { return "\(scheme)://localhost:\(port)" }
        throw BootstrapError("""
            listening on \(host) needs an explicit issuer, the URL clients reach the broker at: pass \
            --issuer https://login.example.com or set server.issuer (tokens would otherwise name \(scheme)://\(hostForURL(host)):\(port)); \
            --dev allows it for a trial, with the issuer \(scheme)://localhost:\(port)
            """)
    }

    /// `localhost`, `127.0.0.0/8` and `::1`: addresses only this machine reaches.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// A start-up failure with a message meant for the operator.
public struct BootstrapError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension StorageLocation {
    static func redactedInput(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@") else { return text }
        return "…" + text[at...]
    }
}
