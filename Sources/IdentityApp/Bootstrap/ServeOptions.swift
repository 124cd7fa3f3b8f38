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

    public init(configDirectory: String = "./console-config", host: String? = nil, port: Int? = nil,
                issuer: String? = nil, storage: String? = nil) {
        self.configDirectory = configDirectory
        self.host = host
        self.port = port
        self.issuer = issuer
        self.storage = storage
    }
}

/// The effective settings after flags, file and defaults are combined.
public struct BrokerSettings: Sendable {
    public var host: String
    public var port: Int
    public var issuer: String
    public var storage: StorageLocation

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080

    public init(options: ServeOptions, config: BrokerConfig) throws {
        host = options.host ?? config.server.host ?? Self.defaultHost
        port = options.port ?? config.server.port ?? Self.defaultPort
        guard (0...65535).contains(port) else { throw BootstrapError("--port must be between 0 and 65535") }
        // The default issuer has the scheme the broker serves: https when it terminates TLS itself.
        let scheme = config.server.tls == nil ? "http" : "https"
        let issuerText = options.issuer ?? config.server.issuer ?? "\(scheme)://\(Self.hostForURL(host)):\(port)"
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
    }

    static func hostForURL(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
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
