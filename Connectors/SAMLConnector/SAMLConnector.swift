import CryptoExtras
import Foundation
import IdentityCore

/// `saml-redirect` and `saml-post` (docs/connectors/saml.md): SP-initiated sign-in at a SAML 2.0
/// IdP. The AuthnRequest goes out over HTTP-Redirect or HTTP-POST; the Response comes back to
/// `POST /saml/acs` and is checked by ``SAMLResponseValidator`` on the blocking-work pool.
struct SAMLConnector: RedirectConnector, MetadataPublishingConnector, LogoutRedirectingConnector {
    let options: SAMLOptions
    let validator: SAMLResponseValidator
    let requestSigningKey: XMLSecurityKey?
    let querySigningKey: _RSA.Signing.PrivateKey?
    let clock: any BrokerClock
    let blocking: any BlockingWorkRunner

    var callbackKind: CallbackKind { .samlAssertionConsumer }

    /// What the broker keeps (sealed) between the request and the response.
    private struct SavedRequest: Codable {
        var requestID: String
    }

    func beginLogin(_ request: RedirectLoginRequest) async throws -> RedirectLoginStart {
        let authnRequest = SAMLAuthnRequest(id: SAMLAuthnRequest.newID(), issueInstant: clock.now(), options: options,
                                            forceAuthn: request.forceLogin)
        let saved = try JSONEncoder().encode(SavedRequest(requestID: authnRequest.id))
        let action: RedirectAction
        switch options.binding {
        case .redirect:
            // Signing the query is an RSA operation: off the cooperative pool, like the POST binding's.
            let relayState = request.relayState
            action = .redirect(try await blocking.run { [querySigningKey] in
                try authnRequest.redirectURL(relayState: relayState, signingKey: querySigningKey)
            })
        case .post:
            let value = try await blocking.run { [requestSigningKey] in try authnRequest.postValue(signingKey: requestSigningKey) }
            action = .autoPost(url: options.ssoURL, fields: [.init("SAMLRequest", value), .init("RelayState", request.relayState)])
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
        let expectation = SAMLResponseValidator.Expectation(
            requestID: saved.requestID, assertionConsumerURL: options.assertionConsumerURL, spEntityID: options.spEntityID,
            now: clock.now(), clockSkew: options.clockSkew)
        let outcome = try await blocking.run { [validator] () -> Result<SAMLAssertion, SAMLRejection> in
            do throws(SAMLRejection) { return .success(try validator.validate(xml, expectation)) } catch { return .failure(error) }
        }
        switch outcome {
        case .failure(let rejection):
            return .rejected(LoginRejection(.other, message: rejection.message))
        case .success(let assertion):
            return .authenticated(ConnectorIdentity(
                userId: assertion.nameID, attributes: assertion.attributes,
                upstream: UpstreamToken(token: assertion.xml),
                oneTimeUse: .init(id: "saml:\(options.spEntityID):\(assertion.id)", expiresAt: assertion.replayExpiry),
                sessionEndsAt: assertion.sessionEnd))
        }
    }

    func metadata() -> (contentType: String, body: String) {
        ("application/samlmetadata+xml", SAMLMetadata.document(options))
    }

    func logoutRedirect(userId: String, postLogoutRedirect: String?) -> String? {
        options.logoutURI
    }
}

/// Builds `saml-redirect` and `saml-post` connectors.
///
/// ```yaml
/// provider:
///   type: saml-post                        # or saml-redirect
///   remoteService: https://idp.example.com/sso
///   options:
///     idpCertificate: ${file:/etc/idconnect/idp.pem}   # a list during a certificate rollover
///     nameIdFormat: emailAddress
///     spPrivateKey: ${file:/etc/idconnect/sp.key}      # to sign requests and decrypt assertions
///     spCertificate: ${file:/etc/idconnect/sp.crt}
///     signRequests: true
///   allowedAttributes: [ id, email, name, groups, client_token ]
/// ```
public struct SAMLConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["saml-redirect", "saml-post"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        try XMLSecurityLibrary.prepare()
        let options = try SAMLOptions.read(settings, issuer: context.issuer)
        let idpKeys = try options.idpCertificates.map { try XMLSecurityKey(certificatePEM: $0) }
        let spKey = try options.spPrivateKey.map { try XMLSecurityKey(privateKeyPEM: $0) }
        let validator = SAMLResponseValidator(
            verifier: XMLSignatureVerifier(keys: idpKeys, allowSHA1: options.allowSHA1),
            decryptor: spKey.map { XMLDecryptor(key: $0) }, wantAssertionsSigned: options.wantAssertionsSigned)
        let querySigningKey = options.signRequests ? try options.spPrivateKey.map { try _RSA.Signing.PrivateKey(pemRepresentation: $0) } : nil
        return SAMLConnector(options: options, validator: validator, requestSigningKey: options.signRequests ? spKey : nil,
                             querySigningKey: querySigningKey, clock: context.clock, blocking: context.blocking)
    }
}
