import Foundation
import Logging
import Testing
import PostgresNIO

/// Fresh, empty databases on the test PostgreSQL server named by `IDCONNECT_POSTGRES_URL`
/// (scripts/test.sh starts one with scripts/peers/postgres-start.sh and exports it).
enum PostgresTestDatabase {
    static var serverURL: String? {
        guard let url = ProcessInfo.processInfo.environment["IDCONNECT_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }

    static let skipReason: Comment = "IDCONNECT_POSTGRES_URL is not set: PostgreSQL tests skipped (scripts/test.sh starts a server)"

    /// Creates a database of its own for one test and returns its URL (same server and user).
    static func create() async throws -> String {
        guard let serverURL, var components = URLComponents(string: serverURL), let host = components.host,
              let user = components.user else {
            throw PostgresTestSetupError(description: "IDCONNECT_POSTGRES_URL is not a usable postgres:// URL")
        }
        let name = "idc_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let adminDatabase = components.path.count > 1 ? String(components.path.dropFirst()) : user
        let configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                             password: components.password, database: adminDatabase, tls: .disable)
        let logger = Logger(label: "postgres-test-setup")
        let connection = try await PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(),
                                                              configuration: configuration, id: 1, logger: logger).get()
        defer { closeWithoutWaiting(connection) }
        try await connection.query("CREATE DATABASE \(unescaped: name)", logger: logger)
        components.path = "/" + name
        return components.string!
    }

    /// Runs one statement on the test server's own database (to observe or disturb the store under test).
    static func execute(_ sql: String, database url: String) async throws -> [PostgresRow] {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw PostgresTestSetupError(description: "not a postgres:// URL")
        }
        let configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                             password: components.password,
                                                             database: String(components.path.dropFirst()), tls: .disable)
        let logger = Logger(label: "postgres-test")
        let connection = try await PostgresConnection.connect(on: PostgresConnection.defaultEventLoopGroup.any(),
                                                              configuration: configuration, id: 2, logger: logger).get()
        defer { closeWithoutWaiting(connection) }
        return try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
    }
}

/// Closes a connection in the background, keeping it alive until it is closed (postgres-nio
/// asserts that). Awaiting `close()` itself hung now and then under the parallel test load.
func closeWithoutWaiting(_ connection: PostgresConnection) {
    let closing: EventLoopFuture<Void> = connection.close()
    closing.whenComplete { _ in withExtendedLifetime(connection) {} }
}

struct PostgresTestSetupError: Error, CustomStringConvertible {
    let description: String
}
