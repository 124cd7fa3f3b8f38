import Foundation
import IdentityCore
import Synchronization

/// The IdP as the connector uses it right now: the explicit options, completed by the IdP's
/// metadata where they are left out (docs/connectors/saml.md, "IdP metadata": explicit options
/// win). Rebuilt whole whenever new metadata is accepted.
struct SAMLIdentityProvider: Sendable {
    /// The IdP's entityID, when metadata names it (logout messages from another issuer are not its).
    var entityID: String?
    var ssoURL: String
    /// Verifies XML signatures with every trusted certificate.
    var verifier: XMLSignatureVerifier
    /// Verifies HTTP-Redirect query signatures with the same certificates.
    var queryVerifier: QuerySignatureVerifier
    /// Where logout messages go, when the IdP takes part in single logout.
    var singleLogout: (binding: SAMLOptions.Binding, endpoint: IdPMetadata.Endpoint)?

    /// Combines `options` with `metadata`; throws when neither gives the single sign-on URL for
    /// the connector's binding or a signing certificate.
    static func make(_ options: SAMLOptions, metadata: IdPMetadata?) throws -> SAMLIdentityProvider {
        guard let ssoURL = options.ssoURL ?? metadata?.singleSignOn[options.binding] else {
            throw IdPMetadataError("the IdP metadata offers no \(options.binding.name) single sign-on service; set remoteService")
        }
        let certificates = options.idpCertificates.isEmpty ? metadata?.signingCertificates ?? [] : options.idpCertificates
        guard !certificates.isEmpty else { throw IdPMetadataError("no IdP signing certificate is configured or in the metadata") }
        let keys = try certificates.map { try XMLSecurityKey(certificatePEM: $0) }
        var singleLogout: (binding: SAMLOptions.Binding, endpoint: IdPMetadata.Endpoint)?
        if let logoutURI = options.logoutURI {
            singleLogout = (options.logoutBinding ?? .redirect, IdPMetadata.Endpoint(location: logoutURI))
        } else if let endpoints = metadata?.singleLogout, !endpoints.isEmpty {
            if let wanted = options.logoutBinding {
                guard let endpoint = endpoints[wanted] else {
                    throw IdPMetadataError("the IdP metadata offers no \(wanted.name) single logout service; set logoutUri or another logoutBinding")
                }
                singleLogout = (wanted, endpoint)
            } else {
                // HTTP-Redirect when the IdP offers it; HTTP-POST when that is all it offers.
                singleLogout = endpoints[.redirect].map { (.redirect, $0) } ?? endpoints[.post].map { (.post, $0) }
            }
        }
        if let response = options.logoutResponseURI { singleLogout?.endpoint.responseLocation = response }
        return SAMLIdentityProvider(
            entityID: metadata?.entityID, ssoURL: ssoURL,
            verifier: XMLSignatureVerifier(keys: keys, allowSHA1: options.allowSHA1),
            queryVerifier: try QuerySignatureVerifier(certificates: certificates, allowSHA1: options.allowSHA1),
            singleLogout: singleLogout)
    }
}

/// The current ``SAMLIdentityProvider``, swapped whole when metadata is refreshed; nil until
/// metadata named by URL has been loaded once.
final class IdentityProviderState: Sendable {
    private let current: Mutex<SAMLIdentityProvider?>

    init(_ initial: SAMLIdentityProvider?) { current = Mutex(initial) }

    var provider: SAMLIdentityProvider? { current.withLock { $0 } }

    func replace(_ provider: SAMLIdentityProvider) { current.withLock { $0 = provider } }
}
