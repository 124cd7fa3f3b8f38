#!/usr/bin/env bash
# Makes the key pair and the SAML metadata of the broker as a SAML Service Provider, as the SAML IdP
# peers (pysaml2-idp-start.sh, ssp-idp-start.sh) know it: a fresh RSA 2048 key with a self-signed
# certificate (CN=idconnect-test-sp) that the SP uses to sign AuthnRequests and that the IdPs encrypt
# assertions to. Run once before starting the IdPs (the start scripts run it when the pair is missing);
# tests hand the same files to the broker. Prints the paths.
#   $SAML_SP_DIR/sp.key  sp.crt (PEM)   sp-metadata.xml (entityID, ACS, single logout over HTTP-Redirect and
#   HTTP-POST, cert for signing + encryption)
# Env: SAML_SP_DIR (${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp, wiped)
#      SAML_SP_ENTITY_ID (http://127.0.0.1:8080/saml/metadata)  SAML_SP_ACS (http://127.0.0.1:8080/saml/acs)
#      SAML_SP_SLO (http://127.0.0.1:8080/saml/slo)
set -euo pipefail
SAML_SP_DIR=${SAML_SP_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp}
SAML_SP_ENTITY_ID=${SAML_SP_ENTITY_ID:-http://127.0.0.1:8080/saml/metadata}
SAML_SP_ACS=${SAML_SP_ACS:-http://127.0.0.1:8080/saml/acs}
SAML_SP_SLO=${SAML_SP_SLO:-http://127.0.0.1:8080/saml/slo}
rm -rf "$SAML_SP_DIR"; mkdir -p "$SAML_SP_DIR"
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=idconnect-test-sp" \
  -keyout "$SAML_SP_DIR/sp.key" -out "$SAML_SP_DIR/sp.crt" 2>/dev/null
chmod 600 "$SAML_SP_DIR/sp.key"
cert=$(grep -v -- '-----' "$SAML_SP_DIR/sp.crt" | tr -d '\n')
key_descriptor() {  # use
  echo "    <md:KeyDescriptor use=\"$1\"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>$cert</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>"
}
cat >"$SAML_SP_DIR/sp-metadata.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="$SAML_SP_ENTITY_ID">
  <md:SPSSODescriptor AuthnRequestsSigned="true" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
$(key_descriptor signing)
$(key_descriptor encryption)
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="$SAML_SP_SLO"/>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="$SAML_SP_SLO"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="$SAML_SP_ACS" index="0" isDefault="true"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
XML
echo "SAML SP $SAML_SP_ENTITY_ID: key $SAML_SP_DIR/sp.key cert $SAML_SP_DIR/sp.crt metadata $SAML_SP_DIR/sp-metadata.xml"
