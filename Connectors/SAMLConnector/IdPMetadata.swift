import CXMLSec
import Foundation

/// Why IdP metadata was not accepted; safe to log and to show in `config check`.
struct IdPMetadataError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the broker takes from a SAML IdP's metadata (SAML Metadata §2.4.3, `IDPSSODescriptor`;
/// docs/connectors/saml.md, "IdP metadata"): its entityID, single sign-on and single logout
/// endpoints per binding, and every signing certificate (all are trusted, so that a certificate
/// rollover announced in the metadata needs no change here).
struct IdPMetadata: Sendable, Equatable {
    struct Endpoint: Sendable, Equatable {
        var location: String
        /// Where answers go (`ResponseLocation`), when not to `location`.
        var responseLocation: String?
    }

    var entityID: String
    var singleSignOn: [SAMLOptions.Binding: String]
    var singleLogout: [SAMLOptions.Binding: Endpoint]
    /// PEM, in document order, without duplicates.
    var signingCertificates: [String]
    var validUntil: Date?

    static let namespace = "urn:oasis:names:tc:SAML:2.0:metadata"

    /// Parses and checks a metadata document: an `EntityDescriptor`, or an `EntitiesDescriptor`
    /// holding exactly one IdP. With `verifier` (`idpMetadataCertificate`) the root must carry a
    /// signature that verifies with it. Refused: an expired `validUntil`, no SAML 2.0 IdP role,
    /// no usable signing certificate, endpoints that are not http(s) URLs.
    static func parse(_ data: Data, signedBy verifier: XMLSignatureVerifier?, now: Date) throws -> IdPMetadata {
        let document: XMLDocument
        do { document = try XMLDocument(parsing: data) } catch {
            throw IdPMetadataError("the IdP metadata is not acceptable XML: \(error)")
        }
        guard let root = document.root else { throw IdPMetadataError("the IdP metadata is empty") }
        if let verifier {
            let outcome: XMLSignatureVerifier.Outcome
            do { outcome = try verifier.verify(root, in: document) } catch {
                throw IdPMetadataError("the IdP metadata signature does not verify with idpMetadataCertificate: \(error)")
            }
            guard outcome == .valid else { throw IdPMetadataError("the IdP metadata is not signed, and idpMetadataCertificate requires it") }
        }
        let entity = try theEntity(root)
        for element in [root, entity] {
            if let text = element.attribute("validUntil") {
                guard let date = SAMLTime.parse(text) else { throw IdPMetadataError("validUntil is not a date") }
                guard now < date else { throw IdPMetadataError("the IdP metadata expired at \(text) (validUntil)") }
            }
        }
        guard let entityID = entity.attribute("entityID"), !entityID.isEmpty, entityID.utf8.count <= 1024 else {
            throw IdPMetadataError("the EntityDescriptor has no entityID")
        }
        guard let idp = entity.children("IDPSSODescriptor", namespace).first(where: {
            ($0.attribute("protocolSupportEnumeration") ?? "").split(separator: " ").contains("urn:oasis:names:tc:SAML:2.0:protocol")
        }) else { throw IdPMetadataError("the metadata of \(entityID.prefix(200)) has no SAML 2.0 IDPSSODescriptor") }
        var metadata = IdPMetadata(entityID: entityID, singleSignOn: [:], singleLogout: [:], signingCertificates: [],
                                   validUntil: [root, entity].compactMap { SAMLTime.parse($0.attribute("validUntil")) }.min())
        for service in idp.children("SingleSignOnService", namespace) {
            guard let binding = binding(service), metadata.singleSignOn[binding] == nil else { continue }
            metadata.singleSignOn[binding] = try location(service, "Location")
        }
        for service in idp.children("SingleLogoutService", namespace) {
            guard let binding = binding(service), metadata.singleLogout[binding] == nil else { continue }
            metadata.singleLogout[binding] = Endpoint(location: try location(service, "Location"),
                                                      responseLocation: try service.attribute("ResponseLocation").map { _ in
                                                          try location(service, "ResponseLocation")
                                                      })
        }
        guard !metadata.singleSignOn.isEmpty else {
            throw IdPMetadataError("the IdP metadata has no SingleSignOnService for HTTP-Redirect or HTTP-POST")
        }
        metadata.signingCertificates = try signingCertificates(of: idp)
        return metadata
    }

    /// The one entity with an IdP role: the root, or the single one inside an `EntitiesDescriptor`.
    private static func theEntity(_ root: xmlNodePtr) throws -> xmlNodePtr {
        if root.isElement("EntityDescriptor", namespace) { return root }
        guard root.isElement("EntitiesDescriptor", namespace) else {
            throw IdPMetadataError("the document is not SAML metadata (no EntityDescriptor)")
        }
        let idps = root.children("EntityDescriptor", namespace).filter { !$0.children("IDPSSODescriptor", namespace).isEmpty }
        guard idps.count == 1 else {
            throw IdPMetadataError("the EntitiesDescriptor holds \(idps.count) identity providers; point the broker at the metadata of one")
        }
        return idps[0]
    }

    private static func binding(_ service: xmlNodePtr) -> SAMLOptions.Binding? {
        switch service.attribute("Binding") {
        case SAMLOptions.Binding.redirect.urn: .redirect
        case SAMLOptions.Binding.post.urn: .post
        default: nil
        }
    }

    private static func location(_ service: xmlNodePtr, _ attribute: String) throws -> String {
        guard let text = service.attribute(attribute), text.utf8.count <= 2048,
              let components = URLComponents(string: text), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
              !(components.host ?? "").isEmpty else {
            throw IdPMetadataError("\(service.localName) has a \(attribute) that is not an absolute http(s) URL")
        }
        return text
    }

    /// The X.509 certificates of the `signing` (or unqualified) key descriptors, as PEM; each must
    /// be usable (readable, RSA of at least 2048 bits or EC).
    private static func signingCertificates(of idp: xmlNodePtr) throws -> [String] {
        var result: [String] = []
        for descriptor in idp.children("KeyDescriptor", namespace) where (descriptor.attribute("use") ?? "signing") == "signing" {
            for keyInfo in descriptor.children("KeyInfo", XMLNamespace.dsig) {
                for data in keyInfo.children("X509Data", XMLNamespace.dsig) {
                    for certificate in data.children("X509Certificate", XMLNamespace.dsig) {
                        let body = (certificate.textOnly ?? "").filter { !$0.isWhitespace }
                        guard !body.isEmpty, body.utf8.count <= 65_536, Data(base64Encoded: body) != nil else {
                            throw IdPMetadataError("a signing X509Certificate is not base64")
                        }
                        let pem = PEM.certificate(base64: body)
                        if let problem = SAMLOptions.certificateProblem(pem) {
                            throw IdPMetadataError("a signing certificate in the metadata \(problem)")
                        }
                        if !result.contains(pem) { result.append(pem) }
                    }
                }
            }
        }
        guard !result.isEmpty else { throw IdPMetadataError("the IdP metadata names no signing certificate") }
        return result
    }
}

/// PEM armour for DER in base64.
enum PEM {
    static func certificate(base64 body: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }

    /// The DER bytes of the first PEM block in `text`.
    static func der(_ text: String) -> [UInt8]? {
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined().filter { !$0.isWhitespace }
        return Data(base64Encoded: body).map { Array($0) }
    }
}
