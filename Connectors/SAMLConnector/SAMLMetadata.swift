import Foundation

/// The SP metadata an IdP administrator imports
/// (docs/connectors/saml.md, "Registering the broker at the IdP": `/saml/metadata`): entityID,
/// SP certificate, single-logout endpoint (`/saml/slo`, both bindings), NameID format, ACS.
enum SAMLMetadata {
    static func document(_ options: SAMLOptions) -> String {
        let keys = options.spCertificate.map { pem -> String in
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            return ["signing", "encryption"].map { use in
                """
                    <md:KeyDescriptor use="\(use)"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\(XMLText.escape(body))</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>

                """
            }.joined()
        } ?? ""
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="\(XMLText.escape(options.spEntityID))">
          <md:SPSSODescriptor AuthnRequestsSigned="\(options.signRequests)" WantAssertionsSigned="\(options.wantAssertionsSigned)" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
        \(keys)    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="\(XMLText.escape(options.singleLogoutURL))"/>
            <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="\(XMLText.escape(options.singleLogoutURL))"/>
            <md:NameIDFormat>\(XMLText.escape(options.nameIDFormat))</md:NameIDFormat>
            <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="\(XMLText.escape(options.assertionConsumerURL))" index="0" isDefault="true"/>
          </md:SPSSODescriptor>
        </md:EntityDescriptor>

        """
    }
}
