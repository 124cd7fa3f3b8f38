import Foundation
import OAuthEngine
import ServiceLifecycle

/// Refreshes identity-provider metadata in the background (SAML `idpMetadataUrl`,
/// docs/connectors/saml.md, "IdP metadata"): every `interval` it asks each connector that reads
/// metadata to fetch again if its `metadataRefresh` has passed (a failed fetch is retried sooner).
/// The first fetch happens at start, in `BrokerBootstrap.prepare`.
public struct MetadataRefreshService: Service {
    let engine: BrokerEngine
    let interval: Duration

    public init(engine: BrokerEngine, interval: Duration) {
        self.engine = engine
        self.interval = interval
    }

    public func run() async throws {
        await periodically(every: interval) { await engine.connectorMetadata.refresh() }
    }
}
