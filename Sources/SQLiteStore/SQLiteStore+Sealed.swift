import Foundation
import GRDB
import StoreContracts

extension SQLiteStore: SealedValueStore {
    public func sealedValues(_ kind: SealedValue.Kind, after cursor: String?, limit: Int) async throws -> [SealedValue] {
        let (table, id, scope, column) = kind.location
        return try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(id) AS id, \(scope ?? "''") AS scope, \(column) AS data FROM \(table)
                WHERE \(column) IS NOT NULL AND \(id) > ? ORDER BY \(id) LIMIT ?
                """, arguments: [cursor ?? "", limit]).map { row in
                SealedValue(kind: kind, id: row["id"], scope: row["scope"], data: row["data"])
            }
        }
    }

    public func replaceSealed(_ value: SealedValue, with sealed: Data) async throws -> Bool {
        let (table, id, _, column) = value.kind.location
        return try await write { db in
            try db.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE \(id) = ? AND \(column) = ?",
                           arguments: [sealed, value.id, value.data])
            return db.changesCount == 1
        }
    }
}
