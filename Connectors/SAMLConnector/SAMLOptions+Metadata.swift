import Foundation
import IdentityCore

/// Where an option sits in the configuration, so that a problem found later (a metadata fetch in
/// `idconnect config check`) names the same file and key path as one found while reading.
struct ConfigSite: Sendable {
    var location: SourceLocation
    var keyPath: String

    init(_ node: ConfigNode) {
        location = node.location
        keyPath = node.keyPath
    }

    func problem(_ reason: String) -> ConfigProblem { ConfigProblem(location: location, keyPath: keyPath, reason: reason) }
}

/// `idpMetadataUrl` or `idpMetadata`, with `idpMetadataCertificate` and `metadataRefresh`
/// (docs/connectors/saml.md, "IdP metadata").
struct SAMLMetadataOptions: Sendable {
    /// `idpMetadataUrl`: fetched at start and every `refreshInterval`; nil for an inline document.
    var url: String?
    /// The option naming the metadata.
    var site: ConfigSite
    /// The inline document (`idpMetadata`, usually `${file:…}`), already checked.
    var document: IdPMetadata?
    /// `idpMetadataCertificate`: when set, the metadata must carry a signature by one of these.
    var signingCertificates: [String]
    /// `metadataRefresh` (seconds).
    var refreshInterval: TimeInterval

    static let defaultRefresh: TimeInterval = 86_400
    static let refreshRange = 60...2_592_000

    /// Reads the metadata options; nil when none is named or they have problems (reported).
    static func read(_ reader: ConfigReader, allowSHA1: Bool, now: Date) -> SAMLMetadataOptions? {
        let url = reader.url("idpMetadataUrl")
        let inline = reader.string("idpMetadata")
        let certificates = reader.strings("idpMetadataCertificate") ?? []
        let refresh = reader.int("metadataRefresh")
        let problemsBefore = reader.problems.problems.count
        if url != nil && inline != nil {
            reader.problem("idpMetadata", "use idpMetadataUrl or idpMetadata, not both")
        }
        if let url, url.scheme?.lowercased() == "http", !isLoopback(url.host) {
            reader.problem("idpMetadataUrl", "must be an https URL (http only on loopback): metadata names the keys the broker trusts")
        }
        if !certificates.isEmpty && url == nil && inline == nil {
            reader.problem("idpMetadataCertificate", "needs idpMetadataUrl or idpMetadata")
        }
        for (index, pem) in certificates.enumerated() {
            if let problem = SAMLOptions.certificateProblem(pem) { reader.problem("idpMetadataCertificate", "entry \(index + 1) \(problem)") }
        }
        if let refresh {
            if url == nil { reader.problem("metadataRefresh", "applies to idpMetadataUrl only") }
            if !refreshRange.contains(refresh) { reader.problem("metadataRefresh", "must be 60 to 2592000 seconds") }
        }
        guard reader.problems.problems.count == problemsBefore,
              let node = reader.node[url != nil ? "idpMetadataUrl" : "idpMetadata"], url != nil || inline != nil else { return nil }
        var options = SAMLMetadataOptions(url: url?.absoluteString, site: ConfigSite(node), document: nil,
                                          signingCertificates: certificates,
                                          refreshInterval: TimeInterval(refresh ?? Int(defaultRefresh)))
        if let inline {
            do {
                options.document = try IdPMetadata.parse(Data(inline.utf8), signedBy: try options.signatureVerifier(allowSHA1: allowSHA1), now: now)
            } catch {
                reader.problem("idpMetadata", "\(error)")
                return nil
            }
        }
        return options
    }

    /// The verifier of the metadata's own signature, when `idpMetadataCertificate` is set.
    func signatureVerifier(allowSHA1: Bool) throws -> XMLSignatureVerifier? {
        guard !signingCertificates.isEmpty else { return nil }
        return XMLSignatureVerifier(keys: try signingCertificates.map { try XMLSecurityKey(certificatePEM: $0) }, allowSHA1: allowSHA1)
    }

    /// Loopback hosts, where plain http cannot be intercepted off the machine (test IdPs).
    static func isLoopback(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
