import Foundation
import IdentityCore

/// The typed `provider` options of `saml-redirect` and `saml-post`
/// (docs/connectors/saml.md, "Options").
struct SAMLOptions: Sendable {
    enum Binding: Sendable { case redirect, post }

    var binding: Binding
    /// The IdP's single sign-on URL (`remoteService`).
    var ssoURL: String
    /// PEM certificates whose keys may sign responses (several during a rollover).
    var idpCertificates: [String]
    var logoutURI: String?
    var nameIDFormat: String
    /// SP entityID (`issuer`), default `<issuer>/saml/metadata`.
    var spEntityID: String
    var assertionConsumerURL: String
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
    static func read(_ settings: ProviderSettings, issuer brokerIssuer: String) throws -> SAMLOptions {
        let problems = ProblemSink()
        let base = brokerIssuer.hasSuffix("/") ? String(brokerIssuer.dropLast()) : brokerIssuer
        var options = SAMLOptions(
            binding: settings.type == "saml-post" ? .post : .redirect, ssoURL: "", idpCertificates: [], logoutURI: nil,
            nameIDFormat: nameIDFormats["emailAddress"]!, spEntityID: base + "/saml/metadata", assertionConsumerURL: base + "/saml/acs",
            signRequests: false, spPrivateKey: nil, spCertificate: nil, wantAssertionsSigned: true, allowSHA1: false, clockSkew: 60)
        if let remote = settings.remoteService, ConfigReader.absoluteURL(remote, schemes: ["http", "https"]) != nil {
            options.ssoURL = remote
        } else {
            problems.add(settings.problem("remoteService", "must be the IdP's single sign-on URL, an absolute http(s) URL"))
        }
        if let authentication = settings.authentication {
            problems.add(authentication, "\(settings.type) does not use authentication; the IdP authenticates the user")
        }
        guard let node = settings.options else {
            problems.add(settings.problem("options", "\(settings.type) needs options with at least idpCertificate"))
            try problems.throwIfAny()
            return options
        }
        let reader = ConfigReader(node, problems: problems)
        options.idpCertificates = reader.strings("idpCertificate", required: true) ?? []
        for (index, pem) in options.idpCertificates.enumerated() {
            guard let key = try? XMLSecurityKey(certificatePEM: pem) else {
                reader.problem("idpCertificate", "entry \(index + 1) is not a PEM certificate")
                continue
            }
            if key.isWeakRSA { reader.problem("idpCertificate", "entry \(index + 1) has an RSA key under \(XMLSecurityKey.minimumRSABits) bits") }
        }
        options.logoutURI = reader.url("logoutUri")?.absoluteString
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
        options.signRequests = reader.bool("signRequests") ?? false
        options.spPrivateKey = reader.string("spPrivateKey")
        options.spCertificate = reader.string("spCertificate")
        if let pem = options.spPrivateKey {
            if let key = try? XMLSecurityKey(privateKeyPEM: pem) {
                if key.isWeakRSA { reader.problem("spPrivateKey", "is an RSA key under \(XMLSecurityKey.minimumRSABits) bits") }
            } else {
                reader.problem("spPrivateKey", "is not an unencrypted PEM private key")
            }
        }
        if let certificate = options.spCertificate, (try? XMLSecurityKey(certificatePEM: certificate)) == nil {
            reader.problem("spCertificate", "is not a PEM certificate")
        }
        if options.signRequests && (options.spPrivateKey == nil || options.spCertificate == nil) {
            reader.problem("signRequests", "needs spPrivateKey and spCertificate")
        }
        if (options.spPrivateKey == nil) != (options.spCertificate == nil) {
            reader.problem(options.spPrivateKey == nil ? "spPrivateKey" : "spCertificate", "spPrivateKey and spCertificate go together")
        }
        options.wantAssertionsSigned = reader.bool("wantAssertionsSigned") ?? true
        options.allowSHA1 = reader.bool("allowSha1") ?? false
        if let skew = reader.int("clockSkew") {
            if (0...600).contains(skew) { options.clockSkew = TimeInterval(skew) } else { reader.problem("clockSkew", "must be 0 to 600 seconds") }
        }
        reader.finish()
        try problems.throwIfAny()
        return options
    }
}
