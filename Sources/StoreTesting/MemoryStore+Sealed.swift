import Foundation
import StoreContracts

extension MemoryStore: SealedValueStore {
    /// By id in byte order, after `cursor`; rows without a sealed value are left out.
    public func sealedValues(_ kind: SealedValue.Kind, after cursor: String?, limit: Int) async throws -> [SealedValue] {
        try read { tables in
            let after = cursor ?? ""
            let values = tables.sealedValues(kind).filter { after.precedesInBytes($0.id) }
            return Array(values.sorted { $0.id.precedesInBytes($1.id) }.prefix(max(0, limit)))
        }
    }

    /// Only while the row still holds `value.data`.
    public func replaceSealed(_ value: SealedValue, with sealed: Data) async throws -> Bool {
        try transaction { tables in
            guard tables.sealedValues(value.kind).contains(where: { $0.id == value.id && $0.data == value.data }) else { return false }
            switch value.kind {
            case .sessionUpstream: tables.sessions[value.id]?.sealedUpstream = sealed
            case .signingKey: tables.signingKeys[value.id]?.sealedPrivateKey = sealed
            case .refreshGrace: tables.families[value.id]?.graceResponse = sealed
            case .mfaTOTP: tables.totpFactors[value.id]?.sealedSecret = sealed
            }
            return true
        }
    }
}

extension MemoryTables {
    /// Every sealed value of `kind`, unordered: where `SealedValue.Kind.location` says the SQL
    /// backends keep it, with the same owner and scope.
    func sealedValues(_ kind: SealedValue.Kind) -> [SealedValue] {
        switch kind {
        case .sessionUpstream:
            sessions.values.compactMap { session in
                session.sealedUpstream.map { SealedValue(kind: kind, id: session.id, scope: session.authServiceId, data: $0) }
            }
        case .signingKey:
            signingKeys.values.map { SealedValue(kind: kind, id: $0.kid, scope: "", data: $0.sealedPrivateKey) }
        case .refreshGrace:
            families.values.compactMap { family in family.graceResponse.map { SealedValue(kind: kind, id: family.id, scope: "", data: $0) } }
        case .mfaTOTP:
            totpFactors.values.map { SealedValue(kind: kind, id: $0.owner.subject, scope: $0.owner.namespace, data: $0.sealedSecret) }
        }
    }
}
