import Foundation
import PostgresStore
import SQLiteStore
import StoreContracts
import Testing

/// The SQL backends the tests that need a whole `BrokerStore` run against: a `TestBroker` booted
/// on one (`TestBroker.make(backend:)`), engine services given one (the login throttle). PostgreSQL
/// joins when `IDCONNECT_POSTGRES_URL` is set (each test then gets a database of its own). The
/// store conformance suite opens its backends itself (`Store/*ConformanceTests.swift`).
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static var allCases: [StoreBackend] { PostgresTestDatabase.serverURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    func open() async throws -> any BrokerStore {
        switch self {
        case .sqlite: try SQLiteStore(path: Self.temporarySQLitePath())
        case .postgres: try await PostgresStore.open(url: PostgresTestDatabase.create())
        }
    }

    /// A database file in a new temporary directory.
    static func temporarySQLitePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("idc-store-\(UUID().uuidString)/s.sqlite").path
    }
}

/// Says, in the test report, whether the PostgreSQL backend ran the tests taking `StoreBackend.allCases`.
@Suite("PostgreSQL store suite")
struct PostgresStoreSuiteGate {
    @Test("the store suite includes PostgreSQL", .disabled(if: PostgresTestDatabase.serverURL == nil, PostgresTestDatabase.skipReason))
    func included() {
        #expect(StoreBackend.allCases.contains(.postgres))
    }
}
