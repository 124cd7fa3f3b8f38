import Foundation

/// A document a connector fetched from its identity source (SAML IdP metadata), as kept in storage.
public struct StoredConnectorDocument: Sendable, Equatable {
    public var data: Data
    public var fetchedAt: Date

    public init(data: Data, fetchedAt: Date) {
        self.data = data
        self.fetchedAt = fetchedAt
    }
}

/// Where connectors keep the last good copy of what they fetch, so that it survives a restart and
/// an identity source that is down, and is shared by every instance on one database
/// (docs/connectors/saml.md, "IdP metadata"). The broker's storage implements it.
public protocol ConnectorDocumentStore: Sendable {
    func connectorDocument(key: String) async throws -> StoredConnectorDocument?
    /// Stores `document` under `key`, unless a copy fetched later is already there (another
    /// instance was quicker).
    func saveConnectorDocument(_ document: StoredConnectorDocument, key: String) async throws
}

/// What one metadata refresh did, for logs and `/metrics`.
public struct MetadataRefreshReport: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// A fetched document was checked and is in use.
        case success
        /// The fetch or the document failed; the last good copy (if any) stays in use.
        case failure
        /// Another instance fetched it recently: its copy from storage is in use, nothing fetched.
        case shared
    }

    public var outcome: Outcome
    /// Where the metadata comes from (a URL).
    public var source: String
    /// Why it failed, safe to log; nil on success.
    public var problem: String?
    /// Whether the connector has usable metadata after this refresh.
    public var usable: Bool

    public init(outcome: Outcome, source: String, problem: String? = nil, usable: Bool) {
        self.outcome = outcome
        self.source = source
        self.problem = problem
        self.usable = usable
    }
}

/// A connector whose settings come partly from a document its identity source publishes and
/// changes (SAML IdP metadata at `idpMetadataUrl`): fetched at start and periodically, checked,
/// and kept in ``ConnectorDocumentStore`` as the last good copy.
public protocol MetadataRefreshingConnector: Connector {
    /// When nothing is loaded yet, takes the last good copy from `store`; then fetches when a
    /// fetch is due, or at once with `force`. Nil when nothing was due.
    func refreshMetadata(store: any ConnectorDocumentStore, force: Bool) async -> MetadataRefreshReport?
    /// Fetches and checks the metadata now, storing nothing (`idconnect config check`): the
    /// problems, located at the option that names the metadata.
    func checkMetadata() async -> [ConfigProblem]
}
