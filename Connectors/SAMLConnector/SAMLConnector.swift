import ConnectorHTTP
import CryptoExtras
import Foundation
import IdentityCore

/// `saml-redirect` and `saml-post` (docs/connectors/saml.md): SP-initiated sign-in at a SAML 2.0
/// IdP. The AuthnRequest goes out over HTTP-Redirect or HTTP-POST; the Response comes back to
/// `POST /saml/acs` and is checked by ``SAMLResponseValidator`` on the blocking-work pool. The
/// IdP's URLs and certificates come from the options or its metadata (``IdentityProviderState``);
/// single logout is in `SAMLConnector+SingleLogout.swift`, metadata refresh in
/// `SAMLConnector+Metadata.swift`.
struct SAMLConnector: RedirectConnector, MetadataPublishingConnector {
    let options: SAMLOptions
    let identityProvider: IdentityProviderState
    /// Set when the IdP metadata is named by URL (`idpMetadataUrl`).
    let metadataSource: SAMLMetadataSource?
    let decryptor: XMLDecryptor?
    /// The SP's key pair, when configured: signs requests when `signRequests`, logout answers always.
    let spKeys: SPSigningKeys?
    let clock: any BrokerClock
    let blocking: any BlockingWorkRunner

    var callbackKind: CallbackKind { .samlAssertionConsumer }

    /// What the broker keeps (sealed) between the request and the response.
    private struct SavedRequest: Codable {
        var requestID: String
    }

    /// The IdP as configured now; an auth service whose metadata has never loaded is unavailable.
    func currentIdentityProvider() throws -> SAMLIdentityProvider {
        guard let provider = identityProvider.provider else {
            throw ConnectorFailure(.unavailable, "The identity provider's metadata (\(metadataSource?.url ?? "idpMetadata")) "
                + "has not been loaded yet; try again later.")
        }
        return provider
    }

    func beginLogin(_ request: RedirectLoginRequest) async throws -> RedirectLoginStart {
        let idp = try currentIdentityProvider()
        let authnRequest = SAMLAuthnRequest(id: SAMLAuthnRequest.newID(), issueInstant: clock.now(), options: options,
                                            destination: idp.ssoURL, forceAuthn: request.forceLogin)
        let saved = try JSONEncoder().encode(SavedRequest(requestID: authnRequest.id))
        let signing = options.signRequests ? spKeys : nil
        let action: RedirectAction
        switch options.binding {
        case .redirect:
            // Signing the query is an RSA operation: off the cooperative pool, like the POST binding's.
            let relayState = request.relayState
            action = .redirect(try await blocking.run { try authnRequest.redirectURL(relayState: relayState, signingKey: signing?.query) })
        case .post:
            let value = try await blocking.run { try authnRequest.postValue(signingKey: signing?.xml) }
            action = .autoPost(url: idp.ssoURL, fields: [.init("SAMLRequest", value), .init("RelayState", request.relayState)])
        }
        return RedirectLoginStart(action: action, savedState: saved)
    }

    func finishLogin(_ callback: RedirectCallback) async throws -> LoginResult {
        guard let saved = try? JSONDecoder().decode(SavedRequest.self, from: callback.savedState) else {
            return .rejected(LoginRejection(.other, message: "This sign-in cannot be completed; start again from the app."))
        }
        guard let encoded = callback.parameters["SAMLResponse"], !encoded.isEmpty else {
            return .rejected(LoginRejection(.other, message: "The identity provider sent no SAMLResponse."))
        }
        guard encoded.utf8.count <= XMLDocument.maximumSize * 4 / 3 + 4096,
              let xml = Data(base64Encoded: encoded.filter { !$0.isWhitespace }) else {
            return .rejected(LoginRejection(.other, message: "The SAMLResponse is not base64."))
        }
        let validator = SAMLResponseValidator(verifier: try currentIdentityProvider().verifier, decryptor: decryptor,
                                              wantAssertionsSigned: options.wantAssertionsSigned)
        let expectation = SAMLResponseValidator.Expectation(
            requestID: saved.requestID, assertionConsumerURL: options.assertionConsumerURL, spEntityID: options.spEntityID,
            now: clock.now(), clockSkew: options.clockSkew)
        let outcome = try await blocking.run { () -> Result<SAMLAssertion, SAMLRejection> in
            do throws(SAMLRejection) { return .success(try validator.validate(xml, expectation)) } catch { return .failure(error) }
        }
        switch outcome {
        case .failure(let rejection):
            return .rejected(LoginRejection(.other, message: rejection.message))
        case .success(let assertion):
            // What a LogoutRequest for this sign-in must name, kept sealed with the assertion.
            var extra = SAMLNameID(value: assertion.nameID, format: assertion.nameIDFormat, nameQualifier: assertion.nameQualifier,
                                   spNameQualifier: assertion.spNameQualifier).extra
            extra["sessionIndex"] = assertion.sessionIndex
            return .authenticated(ConnectorIdentity(
                userId: assertion.nameID, attributes: assertion.attributes,
                upstream: UpstreamToken(token: assertion.xml, extra: extra),
                oneTimeUse: .init(id: "saml:\(options.spEntityID):\(assertion.id)", expiresAt: assertion.replayExpiry),
                sessionEndsAt: assertion.sessionEnd, upstreamSessionId: assertion.sessionIndex))
        }
    }

    func metadata() -> (contentType: String, body: String) {
        ("application/samlmetadata+xml", SAMLMetadata.document(options))
    }
}

/// The SP's private key, as xmlsec (enveloped XML signatures) and swift-crypto (HTTP-Redirect
/// query signatures, RSA only) use it.
struct SPSigningKeys: Sendable {
    let xml: XMLSecurityKey
    let query: _RSA.Signing.PrivateKey?
}

/// Builds `saml-redirect` and `saml-post` connectors.
///
/// ```yaml
/// provider:
///   type: saml-post                        # or saml-redirect
///   options:
///     idpMetadataUrl: https://idp.example.com/metadata   # or remoteService + idpCertificate
///     nameIdFormat: emailAddress
///     spPrivateKey: ${file:/etc/idconnect/sp.key}      # to sign requests and decrypt assertions
///     spCertificate: ${file:/etc/idconnect/sp.crt}
///     signRequests: true
///   allowedAttributes: [ id, email, name, groups, client_token ]
/// ```
public struct SAMLConnectorFactory: ConnectorFactory {
    let http: UpstreamHTTP

    /// `http`: how IdP metadata is fetched (bounded time and size).
    public init(http: UpstreamHTTP = UpstreamHTTP(maxResponseBytes: 512 * 1024)) {
        self.http = http
    }

    public var providerTypes: [String] { ["saml-redirect", "saml-post"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        try XMLSecurityLibrary.prepare()
        let options = try SAMLOptions.read(settings, issuer: context.issuer, now: context.clock.now())
        let spKey = try options.spPrivateKey.map { try XMLSecurityKey(privateKeyPEM: $0) }
        let spKeys = try spKey.map { key in
            SPSigningKeys(xml: key, query: options.signRequests
                ? try options.spPrivateKey.map { try _RSA.Signing.PrivateKey(pemRepresentation: $0) }
                : options.spPrivateKey.flatMap { try? _RSA.Signing.PrivateKey(pemRepresentation: $0) })
        }
        // Hand-copied options or an inline metadata document are complete now; a metadata URL
        // is fetched by the broker right after (and the last good copy restored from storage).
        var initial: SAMLIdentityProvider?
        if options.metadata?.url == nil {
            do {
                initial = try SAMLIdentityProvider.make(options, metadata: options.metadata?.document)
            } catch {
                throw ConfigProblems([settings.problem("options", "\(error)")])
            }
        }
        let source = try options.metadata.flatMap { metadata in
            try metadata.url.map { url in
                SAMLMetadataSource(url: url, site: metadata.site, interval: metadata.refreshInterval,
                                   verifier: try metadata.signatureVerifier(allowSHA1: options.allowSHA1), http: http)
            }
        }
        return SAMLConnector(options: options, identityProvider: IdentityProviderState(initial), metadataSource: source,
                             decryptor: spKey.map { XMLDecryptor(key: $0) }, spKeys: spKeys,
                             clock: context.clock, blocking: context.blocking)
    }
}
