// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "identity-connect",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "idconnect", targets: ["idconnect"]),
        .executable(name: "authlink-sample", targets: ["AuthLinkSample"]),
        .executable(name: "resource-server-example", targets: ["ResourceServerExample"]),
        .library(name: "AuthLinkKit", targets: ["AuthLinkKit"]),
        // The parsers as functions of bytes, for the libFuzzer package in Fuzz/ (docs/fuzzing.md).
        .library(name: "FuzzEntries", targets: ["FuzzEntries"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // HTTPS (server.tls): swift-nio-ssl serves it; swift-certificates reads the PEM pair for `config check`.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The version and the commit this build was made from (the plugin asks git before each build).
        .target(name: "BuildInfo", plugins: ["BuildCommitPlugin"]),
        .plugin(name: "BuildCommitPlugin", capability: .buildTool()),
        .target(name: "IdentityCore", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The hosted pages' words in every shipped language (no dependencies).
        .target(name: "PageLanguages"),
        .target(name: "IdentityConfig", dependencies: [
            "IdentityCore", "PageLanguages", "Yams", .product(name: "X509", package: "swift-certificates"),
        ]),
        // RS256 signing through OpenSSL 3's libcrypto (twice BoringSSL's rate here; JOSE's OpenSSLRSASigner).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "JOSE", dependencies: [
            "IdentityCore", "COpenSSL", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ]),
        .target(name: "StoreContracts", dependencies: ["IdentityCore"]),
        // For tests only: `MemoryStore` (every store role in memory) and the store conformance suite
        // every backend runs (docs/testing.md); its checks use the toolchain's Swift Testing.
        .target(name: "StoreTesting", dependencies: ["StoreContracts", "IdentityCore"]),
        // QR symbols through Debian's libqrencode; User-Agent parsing for the QR-login API.
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .target(name: "QRCode", dependencies: ["CQREncode"]),
        .target(name: "UserAgent"),
        // Second factors (SPEC §3.12): RFC 6238 codes, and passkeys (WebAuthn Level 2, bounded CBOR).
        .target(name: "OneTimePassword", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "WebAuthn", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
        ], resources: [.embedInCode("Resources/passkeys.js")]),
        // Locating client addresses (server.geoip) through Debian's libmaxminddb.
        .systemLibrary(name: "CMaxMindDB", path: "Sources/CMaxMindDB", pkgConfig: "libmaxminddb",
                       providers: [.apt(["libmaxminddb-dev"])]),
        .target(name: "GeoIP", dependencies: ["CMaxMindDB", "IdentityCore"]),
        // Continuing on the calling event loop after work that finishes on another thread.
        .target(name: "EventLoopAffinity", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(name: "SQLiteStore", dependencies: [
            "IdentityCore", "StoreContracts", "EventLoopAffinity", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .target(name: "PostgresStore", dependencies: [
            "IdentityCore", "StoreContracts", .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        .target(name: "OAuthEngine", dependencies: [
            "IdentityCore", "IdentityConfig", "PageLanguages", "StoreContracts", "JOSE", "UserAgent", "OneTimePassword", "WebAuthn",
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        .target(name: "IdentityApp", dependencies: [
            "IdentityCore", "IdentityConfig", "PageLanguages", "StoreContracts", "SQLiteStore", "PostgresStore", "JOSE", "OAuthEngine", "QRCode",
            "GeoIP", "WebAuthn",
            "EventLoopAffinity", "ConnectorHTTP", "BuildInfo",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
        ]),
        // For tests only: `EngineFixture`, a `BrokerEngine` built in Swift — configuration, `static`
        // connectors, signing keys, vault — on `MemoryStore` with a manual clock (docs/testing.md,
        // "Engine unit tests"). No YAML, no files, no sockets: it depends on no app, backend or HTTP target.
        .target(name: "EngineTesting", dependencies: [
            "OAuthEngine", "StoreTesting", "StoreContracts", "StaticConnector", "IdentityConfig", "IdentityCore", "JOSE", "OneTimePassword",
            .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "StaticConnector", dependencies: [
            "IdentityCore", .product(name: "CryptoExtras", package: "swift-crypto"),
        ], path: "Connectors/StaticConnector"),
        .target(name: "ConnectorHTTP", dependencies: [
            "IdentityCore", "EventLoopAffinity", .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ], path: "Connectors/ConnectorHTTP"),
        .target(name: "AuthLinkConnector", dependencies: ["IdentityCore", "ConnectorHTTP"], path: "Connectors/AuthLinkConnector"),
        .target(name: "SAMLWrapConnector", dependencies: ["IdentityCore", "ConnectorHTTP"], path: "Connectors/SAMLWrapConnector"),
        .target(name: "OAuthConnectors", dependencies: [
            "IdentityCore", "ConnectorHTTP", "JOSE", .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Connectors/OAuthConnectors"),
        .systemLibrary(name: "CXMLSec", path: "Connectors/CXMLSec", pkgConfig: "xmlsec1-openssl",
                       providers: [.apt(["libxmlsec1-dev", "libxml2-dev", "libssl-dev"])]),
        // Raw DEFLATE inflation for SAML's HTTP-Redirect binding (logout messages from the IdP).
        .systemLibrary(name: "CZlib", path: "Connectors/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "SAMLConnector", dependencies: [
            "CXMLSec", "CZlib", "IdentityCore", "ConnectorHTTP", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ], path: "Connectors/SAMLConnector"),
        .systemLibrary(name: "CLDAP", path: "Connectors/CLDAP", pkgConfig: "ldap", providers: [.apt(["libldap-dev"])]),
        .target(name: "LDAPClient", dependencies: ["CLDAP", "IdentityCore"], path: "Connectors/LDAPClient"),
        .target(name: "LDAPConnector", dependencies: [
            "LDAPClient", "IdentityCore", .product(name: "Logging", package: "swift-log"),
        ], path: "Connectors/LDAPConnector"),
        .target(name: "AuthLinkKit", dependencies: [
            "IdentityCore", .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], path: "Connectors/AuthLinkKit"),
        .target(name: "FuzzEntries", dependencies: [
            "JOSE", "OAuthEngine", "IdentityConfig", "IdentityCore", "SAMLConnector", "LDAPClient",
            "AuthLinkConnector", "UserAgent",
        ]),
        .executableTarget(name: "AuthLinkSample", dependencies: [
            "AuthLinkKit", "IdentityCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Connectors/AuthLinkSample", exclude: ["users.json"]),
        .executableTarget(name: "idconnect", dependencies: [
            "IdentityApp", "IdentityCore", "PageLanguages", "JOSE", "StaticConnector", "AuthLinkConnector", "SAMLWrapConnector", "OAuthConnectors", "SAMLConnector",
            "LDAPConnector", "EventLoopAffinity", "BuildInfo",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // docs/api-resources.md: an API verifying the broker's tokens with jwt-kit.
        .executableTarget(name: "ResourceServerExample", dependencies: [
            .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Hummingbird", package: "hummingbird"),
        ], path: "examples/swift/ResourceServer"),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"]),
        .testTarget(name: "UserAgentTests", dependencies: ["UserAgent"]),
        .testTarget(name: "OneTimePasswordTests", dependencies: ["OneTimePassword"]),
        .testTarget(name: "PageLanguagesTests", dependencies: ["PageLanguages"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", .product(name: "Crypto", package: "swift-crypto")],
                    exclude: ["Fixtures"]),
        // The engine's parts through their public API on `EngineFixture`: no HTTP server, no YAML.
        .testTarget(name: "OAuthEngineTests", dependencies: [
            "EngineTesting", "OAuthEngine", "StoreTesting", "StoreContracts", "IdentityConfig", "IdentityCore", "JOSE", "OneTimePassword",
            "PageLanguages",
        ]),
        .testTarget(name: "IdentityConnectTests", dependencies: [
            "IdentityApp", "EngineTesting", "StaticConnector", "AuthLinkConnector", "SAMLWrapConnector", "AuthLinkKit", "OAuthConnectors", "SAMLConnector", "CXMLSec",
            "LDAPConnector", "LDAPClient", "StoreContracts", "StoreTesting", "SQLiteStore", "PostgresStore", "JOSE", "Yams", "GeoIP",
            "OneTimePassword", "WebAuthn", "FuzzEntries", "EventLoopAffinity", "BuildInfo", "PageLanguages",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ]),
    ]
)

// Our code's `nonisolated async` functions run where their caller runs (SE-0461) instead of
// switching to the generic executor on entry and back after each call. Under load the broker runs
// its jobs isolated to the event loop (`IDCONNECT_EXECUTOR=adaptive`), where every such switch was
// a trip through the loop's queue: validate, introspect, exchange and the loaded sign-in gained
// 8–17% (docs/benchmarks.md, "eleventh stop"). Functions that must leave their caller say
// `@concurrent` (the Hummingbird middleware witnesses, `EventLoopAffinity.returning`).
for target in package.targets where [.regular, .executable].contains(target.type) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
