import Foundation
import IdentityCore
import JOSE
import Logging
import StoreContracts
import PostgresNIO
@testable import PostgresStore
import StoreTesting
import Synchronization
import Testing

/// What only the PostgreSQL backend has: URL settings, start-up errors, concurrent migrations,
/// several instances (stores) on one database, and recovery when connections drop.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("storage URL: credentials, database, pool and timeouts")
    func settings() throws {
        let settings = try PostgresSettings(url: "postgres://idc:p%40ss@db.example:6432/broker?pool=25&statement_timeout=3&connect_timeout=2&sslmode=require")
        #expect(settings.host == "db.example" && settings.port == 6432 && settings.username == "idc")
        #expect(settings.password == "p@ss" && settings.database == "broker")
        #expect(settings.poolSize == 25 && settings.statementTimeout == 3 && settings.connectTimeout == 2 && settings.sslMode == .require)
        let defaults = try PostgresSettings(url: "postgresql://idc@localhost")
        #expect(defaults.port == 5432 && defaults.database == "idc" && defaults.poolSize == 10 && defaults.statementTimeout == 5)
        #expect(defaults.sslMode == .prefer)
    }

    @Test("bad storage URLs are refused with the reason, never the password",
          arguments: ["postgres://u:secretpw@h/db?pool=0", "postgres://u:secretpw@h/db?pool=many",
                      "postgres://u:secretpw@h/db?statement_timeout=-1", "postgres://u:secretpw@h/db?colour=blue",
                      "postgres://u:secretpw@h/db?sslmode=maybe", "postgres://:secretpw@h/db", "postgres:///db"])
    func badSettings(_ url: String) {
        do {
            _ = try PostgresSettings(url: url)
            Issue.record("accepted \(url)")
        } catch {
            let message = "\(error)"
            #expect(message.contains("storage URL"))
            #expect(!message.contains("secretpw"))
        }
    }

    @Test("an unreachable database fails the open with a clear message naming the server")
    func unreachable() async throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        do {
            let store = try await PostgresStore.open(url: "postgres://idc:secretpw@127.0.0.1:1/broker?connect_timeout=3")
            try await store.close()
            Issue.record("opened a store on a closed port")
        } catch {
            let message = "\(error)"
            #expect(message.contains("cannot connect to PostgreSQL at 127.0.0.1:1/broker"))
            #expect(!message.contains("secretpw"))
        }
    }

    @Test("four instances opening one new database at once migrate it exactly once",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func concurrentMigrations() async throws {
        let url = try await PostgresTestDatabase.create()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresStore.open(url: url) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let versions = try await PostgresTestDatabase.execute("SELECT version FROM idconnect_migrations", database: url)
        // One row per migration (v1, v2-registered-clients, v3-one-time-grants, v4-families-by-client,
        // v5-security, v6-qr-logins, v7-resources-claims, v8-account, v9-mfa, v10-saml-lifecycle,
        // v11-web-origins, v12-throttle-reservations): each applied exactly once.
        #expect(versions.count == PostgresMigrations.migrations.count && versions.count == 17)
        // What one instance writes, another reads.
        try await stores[0].insertSession(StoreFixtures.session("shared"))
        #expect(try await stores[3].session(id: "shared")?.userId == "alice")
        // A later start finds everything applied.
        let later = try await PostgresStore.open(url: url)
        try await later.close()
        for store in stores { try await store.close() }
    }

    @Test("a migration statement slower than the store's statement_timeout completes: bounded by the lease instead",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1)))
    func slowMigration() async throws {
        let (connection, logger) = try await Self.migrationConnection(statementTimeout: 1)
        defer { closeWithoutWaiting(connection) }
        // The timeout holds for other statements on the connection…
        await #expect(throws: (any Error).self) {
            try await connection.query("DO $$ BEGIN PERFORM pg_sleep(1.5); END $$", logger: logger).collect()
        }
        // …but not for a migration's, like an index built on a large table.
        try await PostgresMigrations.migrate(on: connection, migrations: [("slow", ["DO $$ BEGIN PERFORM pg_sleep(1.5); END $$"])],
                                             logger: logger)
        let versions = try await connection.query("SELECT version FROM idconnect_migrations", logger: logger).collect()
        #expect(try versions.map { try $0.decode(String.self) } == ["slow"])
    }

    @Test("a migration statement that fails after its first rows fails the start, not retried for ever, and records nothing",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason), .timeLimit(.minutes(1)))
    func migrationFailingMidStream() async throws {
        let (connection, logger) = try await Self.migrationConnection(statementTimeout: 5)
        defer { closeWithoutWaiting(connection) }
        await #expect(throws: (any Error).self) {
            try await PostgresMigrations.migrate(
                on: connection, migrations: [("broken", ["CREATE TABLE t (x INT)", "SELECT 1 / (x - 3) FROM generate_series(1, 5) x"])],
                logger: logger)
        }
        #expect(try await connection.query("SELECT version FROM idconnect_migrations", logger: logger).collect().isEmpty)
        #expect(try await connection.query("SELECT 1 FROM pg_tables WHERE tablename = 't'", logger: logger).collect().isEmpty)
    }

    private static func migrationConnection(statementTimeout: Int) async throws -> (PostgresConnection, Logger) {
        let url = try await PostgresTestDatabase.create()
        let settings = try PostgresSettings(url: url + (url.contains("?") ? "&" : "?") + "statement_timeout=\(statementTimeout)")
        let logger = Logger(label: "migration-test")
        return (try await PostgresMigrations.connect(settings: settings, logger: logger), logger)
    }

    @Test("across two instances: one winner per code, per rotation and per refresh lease",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func racesAcrossInstances() async throws {
        let url = try await PostgresTestDatabase.create()
        let first = try await PostgresStore.open(url: url)
        let second = try await PostgresStore.open(url: url)
        let now = StoreFixtures.now
        try await first.insertSession(StoreFixtures.session("s1"))
        try await first.insertFamily(StoreFixtures.family("f1", session: "s1", refresh: "r1"))
        for index in 0..<10 {
            try await first.insertCode(AuthorizationCode(hash: "c\(index)", clientId: "kid", redirectURI: "https://a/cb", scope: "",
                                                         nonce: nil, codeChallenge: nil, sessionId: "s1", createdAt: now,
                                                         expiresAt: now.addingTimeInterval(60)))
        }
        let stores = [first, second]
        let redeemed = try await withThrowingTaskGroup(of: String?.self) { group in
            for attempt in 0..<200 {
                group.addTask {
                    let result = try await stores[attempt % 2].redeemCode(hash: "c\(attempt % 10)", at: now, familyId: "f-\(attempt)")
                    if case .redeemed(let code) = result { return code.hash }
                    return nil
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
        }
        #expect(redeemed.sorted() == (0..<10).map { "c\($0)" }.sorted())
        let rotations = try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in 0..<40 {
                group.addTask {
                    try await stores[attempt % 2].rotateRefresh(familyId: "f1", from: "r1", to: "r2-\(attempt)",
                                                                expiresAt: now.addingTimeInterval(9000), graceResponse: nil, at: now)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rotations.filter { $0 }.count == 1)
        let leases = try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in 0..<40 {
                group.addTask {
                    try await stores[attempt % 2].acquireRefreshLease(sessionId: "s1", holder: "h\(attempt)",
                                                                      until: now.addingTimeInterval(45), now: now)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(leases.filter { $0 }.count == 1)
        // An expired lease can be taken over; a live one cannot.
        #expect(try await !second.acquireRefreshLease(sessionId: "s1", holder: "late", until: now.addingTimeInterval(90), now: now))
        #expect(try await second.acquireRefreshLease(sessionId: "s1", holder: "late", until: now.addingTimeInterval(90),
                                                     now: now.addingTimeInterval(46)))
        try await second.releaseRefreshLease(sessionId: "s1", holder: "late")
        #expect(try await first.acquireRefreshLease(sessionId: "s1", holder: "next", until: now.addingTimeInterval(45), now: now))
        try await first.close()
        try await second.close()
    }

    @Test("a serialization failure or deadlock inside a transaction is retried; the body's own errors come through unwrapped",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func transactionRetries() async throws {
        let store = try await PostgresStore.open(url: PostgresTestDatabase.create())
        for state in ["40001", "40P01"] {
            let attempts = Atomic(0)
            // The server itself raises the error in the first attempt, as it would for a real conflict.
            let result = try await store.transaction { connection in
                let attempt = attempts.add(1, ordering: .relaxed).newValue
                if attempt == 1 {
                    try await connection.query(PostgresQuery(unsafeSQL: "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '\(state)'; END $$"),
                                               logger: Logger(label: "test"))
                }
                return attempt
            }
            #expect(result == 2, "\(state)")
        }
        struct Refusal: Error {}
        await #expect(throws: Refusal.self) { try await store.transaction { _ in throw Refusal() } }
        try await store.close()
    }

    @Test("sslmode=prefer uses TLS with the server's self-signed certificate; require refuses that certificate",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func tlsModes() async throws {
        let url = try await PostgresTestDatabase.create()
        let database = String(try #require(URLComponents(string: url)).path.dropFirst())
        let preferred = try await PostgresStore.open(url: url.replacingOccurrences(of: "sslmode=disable", with: "sslmode=prefer"))
        try await preferred.insertSession(StoreFixtures.session("over-tls"))
        let encrypted = try await PostgresTestDatabase.execute("""
            SELECT count(*)::int FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE s.ssl AND a.datname = '\(database)'
            """, database: url)
        #expect(try encrypted.first?.decode(Int.self) ?? 0 > 0)
        try await preferred.close()
        do {
            let strict = try await PostgresStore.open(url: url.replacingOccurrences(of: "sslmode=disable", with: "sslmode=require&connect_timeout=3"))
            try await strict.close()
            Issue.record("sslmode=require accepted a self-signed certificate")
        } catch {
            #expect(!"\(error)".contains(try #require(URLComponents(string: url)?.password)))
        }
    }

    @Test("connections killed by the server: the store reconnects without being reopened",
          .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func reconnects() async throws {
        let url = try await PostgresTestDatabase.create()
        let store = try await PostgresStore.open(url: url)
        try await store.insertSession(StoreFixtures.session("s1"))
        let database = String(URLComponents(string: url)!.path.dropFirst())
        let killed = try await PostgresTestDatabase.execute("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '\(database)' AND application_name = 'idconnect' AND pid <> pg_backend_pid()
            """, database: url)
        #expect(!killed.isEmpty)
        // The first call may meet the closed connection; within a few seconds calls succeed again.
        var recovered = false
        for _ in 0..<50 where !recovered {
            recovered = (try? await store.session(id: "s1")) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered)
        try await store.close()
    }
}
