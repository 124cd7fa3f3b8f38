import Foundation
import IdentityCore
import Logging

/// Identity-source metadata of the connectors that read it (SAML `idpMetadataUrl`,
/// docs/connectors/saml.md, "IdP metadata"): the last good copy restored from storage, a fetch at
/// start and on reload, then whenever a connector's refresh interval has passed. Every outcome is
/// logged and counted (`idconnect_saml_metadata_refreshes_total`).
public struct ConnectorMetadata: Sendable {
    let context: EngineContext
    /// Where the last good copy of each document is kept, shared by every instance.
    let documentStore: any ConnectorDocumentStore

    /// Refreshes the connectors of `directory` (the live one when nil) that read metadata:
    /// `force` fetches for all of them now, otherwise only those that are due. The reports, by
    /// auth service namespace (`env:<appKey>/<id>`, `org:<org>/<id>`).
    @discardableResult
    public func refresh(force: Bool = false, directory: ClientDirectory? = nil) async -> [String: MetadataRefreshReport] {
        let connectors = Self.connectors(in: directory ?? context.state.directory)
        guard !connectors.isEmpty else { return [:] }
        let store = documentStore
        let reports = await withTaskGroup(of: (String, MetadataRefreshReport?).self) { group in
            for (service, connector) in connectors {
                group.addTask { (service.namespace, await connector.refreshMetadata(store: store, force: force)) }
            }
            var collected: [String: MetadataRefreshReport] = [:]
            for await (namespace, report) in group { collected[namespace] = report }
            return collected
        }
        for (service, _) in connectors {
            guard let report = reports[service.namespace] else { continue }
            context.metrics.metadataRefresh(authService: service.id, outcome: report.outcome.rawValue)
            var metadata: Logger.Metadata = ["authService": "\(service.namespace)", "source": "\(report.source)"]
            switch report.outcome {
            case .failure:
                metadata["problem"] = "\(report.problem ?? "unknown")"
                metadata["lastGoodCopy"] = "\(report.usable ? "in use" : "none: sign-ins answer temporarily_unavailable")"
                context.logger.warning("IdP metadata refresh failed", metadata: metadata)
            case .success, .shared:
                context.logger.info("IdP metadata refreshed", metadata: metadata)
            }
        }
        return reports
    }

    /// The metadata-reading connectors of `directory`, one per auth service namespace (an
    /// organization's auth service appears in each of its environments with one connector).
    static func connectors(in directory: ClientDirectory) -> [(ResolvedAuthService, any MetadataRefreshingConnector)] {
        var seen: Set<String> = []
        var result: [(ResolvedAuthService, any MetadataRefreshingConnector)] = []
        for appKey in directory.environments.keys.sorted() {
            guard let entry = directory.environments[appKey] else { continue }
            for service in entry.services.values.sorted(by: { $0.id < $1.id }) where seen.insert(service.namespace).inserted {
                if let connector = service.connector as? any MetadataRefreshingConnector { result.append((service, connector)) }
            }
        }
        return result
    }
}
