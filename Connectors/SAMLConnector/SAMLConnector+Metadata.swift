import Foundation
import IdentityCore

/// IdP metadata named by URL (docs/connectors/saml.md, "IdP metadata"): restored from the last
/// good copy in storage, fetched when due, checked (signature with `idpMetadataCertificate`,
/// `validUntil`, a usable binding and certificate) on the blocking-work pool, then swapped in whole.
/// A failed or invalid fetch changes nothing but the report.
extension SAMLConnector: MetadataRefreshingConnector {
    func refreshMetadata(store: any ConnectorDocumentStore, force: Bool) async -> MetadataRefreshReport? {
        guard let source = metadataSource else { return nil }
        let now = clock.now()
        if source.takeRestoreTurn(), identityProvider.provider == nil,
           let stored = try? await store.connectorDocument(key: source.storageKey),
           // The last good copy stays good even past its validUntil: it is what the IdP last said.
           let provider = try? await provider(from: stored.data, now: .distantPast) {
            identityProvider.replace(provider)
            source.noteInUse(fetchedAt: stored.fetchedAt)
        }
        guard force || source.isDue(at: now) else { return nil }
        if !force, let stored = try? await store.connectorDocument(key: source.storageKey),
           source.isFresherShared(fetchedAt: stored.fetchedAt, now: now),
           let provider = try? await provider(from: stored.data, now: now) {
            // Another instance fetched it within the interval: one fetch serves them all.
            identityProvider.replace(provider)
            source.noteInUse(fetchedAt: stored.fetchedAt)
            source.noteAttempt(at: now, failed: false)
            return MetadataRefreshReport(outcome: .shared, source: source.url, usable: true)
        }
        do {
            let data = try await source.download()
            let provider = try await provider(from: data, now: now)
            identityProvider.replace(provider)
            source.noteInUse(fetchedAt: now)
            source.noteAttempt(at: now, failed: false)
            try? await store.saveConnectorDocument(StoredConnectorDocument(data: data, fetchedAt: now), key: source.storageKey)
            return MetadataRefreshReport(outcome: .success, source: source.url, usable: true)
        } catch {
            source.noteAttempt(at: now, failed: true)
            return MetadataRefreshReport(outcome: .failure, source: source.url, problem: SAMLMetadataSource.describe(error),
                                         usable: identityProvider.provider != nil)
        }
    }

    func checkMetadata() async -> [ConfigProblem] {
        guard let source = metadataSource else { return [] }
        do {
            _ = try await provider(from: try await source.download(), now: clock.now())
            return []
        } catch {
            return [source.site.problem("\(SAMLMetadataSource.describe(error)) (\(source.url))")]
        }
    }

    /// The IdP that `data` describes, combined with the options; parsed and checked off the
    /// cooperative pool (libxml2, xmlsec).
    private func provider(from data: Data, now: Date) async throws -> SAMLIdentityProvider {
        let verifier = metadataSource?.verifier
        let options = options
        return try await blocking.run {
            try SAMLIdentityProvider.make(options, metadata: try IdPMetadata.parse(data, signedBy: verifier, now: now))
        }
    }
}
