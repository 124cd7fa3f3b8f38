import Foundation
import StoreContracts

extension MemoryStore: ConsentStore {
    public func consent(subject: String, clientId: String) async throws -> ConsentRecord? {
        try read { $0.consents[subject]?[clientId] }
    }

    public func saveConsent(_ record: ConsentRecord) async throws {
        try transaction { tables in
            var saved = record
            if let earlier = tables.consents[record.subject]?[record.clientId] { saved.grantedAt = earlier.grantedAt }
            tables.consents[record.subject, default: [:]][record.clientId] = saved
        }
    }

    public func consents(subject: String, limit: Int) async throws -> [ConsentRecord] {
        try read { tables in
            let all = tables.consents[subject].map { Array($0.values) } ?? []
            return Array(all.sorted { ($1.updatedAt, $0.clientId) < ($0.updatedAt, $1.clientId) }.prefix(max(0, limit)))
        }
    }

    public func revokeConsent(subject: String, clientId: String) async throws -> Bool {
        try transaction { tables in tables.consents[subject]?.removeValue(forKey: clientId) != nil }
    }
}
