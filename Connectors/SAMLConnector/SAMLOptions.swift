import Foundation
import IdentityCore

/// The typed `provider` options of `saml-redirect` and `saml-post`
/// (docs/connectors/saml.md, "Options").
struct SAMLOptions: Sendable {
    enum Binding: Sendable { case redirect, post }

    var binding: Binding
    /// The IdP's single sign-on URL (`remoteService`); nil when the IdP metadata supplies it.
    var ssoURL: String?
    /// PEM certificates whose keys may sign responses (several during a rollover); empty when the
    /// IdP metadata supplies them. When set, they win over the metadata's.
    var idpCertificates: [String]
    /// The IdP's single-logout endpoint (`logoutUri`, HTTP-Redirect); nil when the metadata
    /// supplies one, or there is none.
    var logoutURI: String?
    /// `logoutBinding`: how LogoutRequests and answers go to the IdP; nil: HTTP-Redirect when
    /// the IdP offers it, else HTTP-POST (HTTP-Redirect with a hand-copied `logoutUri`).
    var logoutBinding: Binding? = nil
    /// `logoutResponseUri`: where answers to the IdP's own LogoutRequests go, when not to its
    /// single-logout endpoint (Okta's "Single Logout Callback URL").
    var logoutResponseURI: String? = nil
    /// `idpMetadataUrl` / `idpMetadata` and their settings.
    var metadata: SAMLMetadataOptions?
    var nameIDFormat: String
    /// SP entityID (`issuer`), default `<issuer>/saml/metadata`.
    var spEntityID: String
    var assertionConsumerURL: String
    /// The SP's single-logout endpoint, `<issuer>/saml/slo`.
    var singleLogoutURL: String
    var signRequests: Bool
    var spPrivateKey: String?
    var spCertificate: String?
    var wantAssertionsSigned: Bool
    var allowSHA1: Bool
    var clockSkew: TimeInterval

    static let nameIDFormats = [
        "emailAddress": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        "unspecified": "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
        "persistent": "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
        "transient": "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
    ]

    /// Reads and validates the provider section; every problem is reported with its key path.
    /// An inline `idpMetadata` document is checked here too (`now` for its `validUntil`).
    static func read(_ settings: ProviderSettings, issuer brokerIssuer: String, now: Date = Date()) throws -> SAMLOptions {
        let problems = ProblemSink()
        let base = brokerIssuer.hasSuffix("/") ? String(brokerIssuer.dropLast()) : brokerIssuer
        var options = SAMLOptions(
            binding: settings.type == "saml-post" ? .post : .redirect, ssoURL: nil, idpCertificates: [], logoutURI: nil,
            metadata: nil, nameIDFormat: nameIDFormats["emailAddress"]!, spEntityID: base + "/saml/metadata",
            assertionConsumerURL: base + "/saml/acs", singleLogoutURL: base + "/saml/slo",
            signRequests: false, spPrivateKey: nil, spCertificate: nil, wantAssertionsSigned: true, allowSHA1: false, clockSkew: 60)
        if let authentication = settings.authentication {
            problems.add(authentication, "\(settings.type) does not use authentication; the IdP authenticates the user")
        }
        guard let node = settings.options else {
            problems.add(settings.problem("options", "\(settings.type) needs options with idpCertificate or IdP metadata "
                + "(idpMetadataUrl or idpMetadata)"))
            try problems.throwIfAny()
            return options
        }
        let reader = ConfigReader(node, problems: problems)
        options.allowSHA1 = reader.bool("allowSha1") ?? false
        // Metadata named (even if it has problems of its own): the IdP's URLs and certificates may come from it.
        let namesMetadata = reader.has("idpMetadataUrl") || reader.has("idpMetadata")
        options.metadata = SAMLMetadataOptions.read(reader, allowSHA1: options.allowSHA1, now: now)
        if let remote = settings.remoteService {
            if ConfigReader.absoluteURL(remote, schemes: ["http", "https"]) != nil { options.ssoURL = remote } else {
                problems.add(settings.problem("remoteService", "must be the IdP's single sign-on URL, an absolute http(s) URL"))
            }
        } else if !namesMetadata {
            problems.add(settings.problem("remoteService", "must be the IdP's single sign-on URL, or come from IdP metadata "
                + "(options.idpMetadataUrl or options.idpMetadata)"))
        } else if let document = options.metadata?.document, document.singleSignOn[options.binding] == nil {
            problems.add(settings.problem("remoteService", "the IdP metadata offers no \(options.binding.name) single sign-on "
                + "service; set remoteService"))
        }
        options.idpCertificates = reader.strings("idpCertificate", required: !namesMetadata) ?? []
        for (index, pem) in options.idpCertificates.enumerated() {
            if let problem = Self.certificateProblem(pem) { reader.problem("idpCertificate", "entry \(index + 1) \(problem)") }
        }
        options.logoutURI = reader.url("logoutUri")?.absoluteString
        options.logoutResponseURI = reader.url("logoutResponseUri")?.absoluteString
        switch reader.string("logoutBinding") {
        case nil: break
        case "redirect": options.logoutBinding = .redirect
        case "post": options.logoutBinding = .post
        default: reader.problem("logoutBinding", "must be redirect or post")
        }
        if let format = reader.string("nameIdFormat") {
            if let full = nameIDFormats[format] { options.nameIDFormat = full } else if format.hasPrefix("urn:") { options.nameIDFormat = format } else {
                reader.problem("nameIdFormat", "must be emailAddress, persistent, transient, unspecified or a full urn: format")
            }
        }
        if let entityID = reader.string("issuer") {
            if entityID.isEmpty || entityID.utf8.count > 1024 { reader.problem("issuer", "must be a non-empty SP entityID") } else {
                options.spEntityID = entityID
            }
        }
        options.readSPKeys(reader)
        options.wantAssertionsSigned = reader.bool("wantAssertionsSigned") ?? true
        if let skew = reader.int("clockSkew") {
            if (0...600).contains(skew) { options.clockSkew = TimeInterval(skew) } else { reader.problem("clockSkew", "must be 0 to 600 seconds") }
        }
        reader.finish()
        try problems.throwIfAny()
        return options
    }

    /// Why a PEM certificate cannot verify IdP signatures, or nil when it can.
    static func certificateProblem(_ pem: String) -> String? {
        guard let key = try? XMLSecurityKey(certificatePEM: pem) else { return "is not a PEM certificate" }
        return key.isWeakRSA ? "has an RSA key under \(XMLSecurityKey.minimumRSABits) bits" : nil
    }

    /// `spPrivateKey`, `spCertificate`, `signRequests`.
    private mutating func readSPKeys(_ reader: ConfigReader) {
        signRequests = reader.bool("signRequests") ?? false
        spPrivateKey = reader.string("spPrivateKey")
        spCertificate = reader.string("spCertificate")
        if let pem = spPrivateKey {
            if let key = try? XMLSecurityKey(privateKeyPEM: pem) {
                if key.isWeakRSA { reader.problem("spPrivateKey", "is an RSA key under \(XMLSecurityKey.minimumRSABits) bits") }
            } else {
                reader.problem("spPrivateKey", "is not an unencrypted PEM private key")
            }
        }
        if let certificate = spCertificate, (try? XMLSecurityKey(certificatePEM: certificate)) == nil {
            reader.problem("spCertificate", "is not a PEM certificate")
        }
        if signRequests && (spPrivateKey == nil || spCertificate == nil) {
            reader.problem("signRequests", "needs spPrivateKey and spCertificate")
        }
        if (spPrivateKey == nil) != (spCertificate == nil) {
            reader.problem(spPrivateKey == nil ? "spPrivateKey" : "spCertificate", "spPrivateKey and spCertificate go together")
        }
    }
}

extension SAMLOptions.Binding {
    /// The binding's URN, as metadata names it.
    var urn: String {
        switch self {
        case .redirect: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
        case .post: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
        }
    }

    var name: String {
        switch self {
        case .redirect: "HTTP-Redirect"
        case .post: "HTTP-POST"
        }
    }
}
