#!/usr/bin/env bash
# Makes the SAML seed corpora (Fuzz/corpus/saml-response, Fuzz/corpus/saml-decrypt) with xmlsec1:
# a Response with a signed assertion, one signed twice (Response and assertion), one whose signed
# assertion is encrypted to the SP key, and the bare EncryptedAssertion. The keys are the test keys
# in Fuzz/keys; the values match SAMLFuzzing (Connectors/SAMLConnector/SAMLFuzzing.swift).
# Run again only when those change; the outputs are checked in.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
keys="$here/keys"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
command -v xmlsec1 >/dev/null || { echo "xmlsec1 is needed (apt-get install xmlsec1)" >&2; exit 1; }

ds='xmlns:ds="http://www.w3.org/2000/09/xmldsig#"'
signature() { # $1: the ID the signature covers
    printf '<ds:Signature %s><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/><ds:Reference URI="#%s"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference></ds:SignedInfo><ds:SignatureValue/></ds:Signature>' "$ds" "$1"
}
assertion() { # $1: the signature template (or nothing)
    cat <<XML
<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1" Version="2.0" IssueInstant="2026-06-01T00:00:00Z"><saml:Issuer>https://idp.example.org</saml:Issuer>$1<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">alice@example.org</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData Recipient="https://sp.example.org/saml/acs" NotOnOrAfter="2099-01-01T00:00:00Z" InResponseTo="_fuzz-request"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="2026-05-31T23:59:00Z" NotOnOrAfter="2099-01-01T00:00:00Z"><saml:AudienceRestriction><saml:Audience>https://sp.example.org/saml/metadata</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="2026-06-01T00:00:00Z" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="mail"><saml:AttributeValue>alice@example.org</saml:AttributeValue></saml:Attribute><saml:Attribute Name="displayName"><saml:AttributeValue>Alice</saml:AttributeValue></saml:Attribute><saml:Attribute Name="eduPersonAffiliation"><saml:AttributeValue>staff</saml:AttributeValue><saml:AttributeValue>member</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion>
XML
}
response() { # $1: the Response signature template (or nothing), $2: the assertion part
    printf '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_p1" Version="2.0" IssueInstant="2026-06-01T00:00:00Z" InResponseTo="_fuzz-request" Destination="https://sp.example.org/saml/acs"><saml:Issuer>https://idp.example.org</saml:Issuer>%s<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>%s</samlp:Response>' "$1" "$2"
}
sign() { # $1 in, $2 out, $3: XPath of the Signature node to fill
    xmlsec1 --sign --privkey-pem "$keys/idp.key" --id-attr:ID urn:oasis:names:tc:SAML:2.0:assertion:Assertion \
        --id-attr:ID urn:oasis:names:tc:SAML:2.0:protocol:Response --node-xpath "$3" --output "$2" "$1" 2>/dev/null
}
assertionSignature="//*[local-name()='Assertion']/*[local-name()='Signature']"
responseSignature="/*[local-name()='Response']/*[local-name()='Signature']"

out_r="$here/corpus/saml-response" out_d="$here/corpus/saml-decrypt"
mkdir -p "$out_r" "$out_d"

response "" "$(assertion "$(signature _a1)")" > "$work/plain.xml"
sign "$work/plain.xml" "$out_r/signed-assertion.xml" "$assertionSignature"

response "$(signature _p1)" "$(assertion "$(signature _a1)")" > "$work/both.xml"
sign "$work/both.xml" "$work/both-1.xml" "$assertionSignature"
sign "$work/both-1.xml" "$out_r/signed-response-and-assertion.xml" "$responseSignature"

# Encrypted: the signed assertion inside EncryptedAssertion, then encrypted in place to the SP key.
python3 - "$out_r/signed-assertion.xml" "$work/to-encrypt.xml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'(<saml:Assertion\b[\s\S]*</saml:Assertion>)', r'<saml:EncryptedAssertion>\1</saml:EncryptedAssertion>', text)
open(sys.argv[2], "w").write(text)
PY
cat > "$work/template.xml" <<'XML'
<xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"><xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes256-cbc"/><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><xenc:EncryptedKey><xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"/><xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedKey></ds:KeyInfo><xenc:CipherData><xenc:CipherValue/></xenc:CipherData></xenc:EncryptedData>
XML
xmlsec1 --encrypt --pubkey-cert-pem "$keys/sp.crt" --session-key aes-256 --xml-data "$work/to-encrypt.xml" \
    --node-xpath "//*[local-name()='Assertion']" --output "$out_r/encrypted-assertion.xml" "$work/template.xml" 2>/dev/null
cp "$out_r/encrypted-assertion.xml" "$out_d/response.xml"
python3 - "$out_r/encrypted-assertion.xml" "$out_d/encrypted-assertion.xml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
part = re.search(r'<saml:EncryptedAssertion>[\s\S]*</saml:EncryptedAssertion>', text).group(0)
part = part.replace('<saml:EncryptedAssertion>', '<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">', 1)
open(sys.argv[2], "w").write(part)
PY
# Hostile shapes the fuzzer starts from as well: a second, unsigned assertion; a DOCTYPE.
python3 - "$out_r/signed-assertion.xml" "$out_r" <<'PY'
import re, sys, os
text = open(sys.argv[1]).read()
evil = re.sub(r'<ds:Signature[\s\S]*?</ds:Signature>', '', re.search(r'<saml:Assertion\b[\s\S]*</saml:Assertion>', text).group(0))
evil = evil.replace('alice@example.org</saml:NameID>', 'mallory@example.org</saml:NameID>').replace('ID="_a1"', 'ID="_evil"')
open(os.path.join(sys.argv[2], "second-assertion.xml"), "w").write(text.replace('</samlp:Response>', evil + '</samlp:Response>'))
open(os.path.join(sys.argv[2], "doctype.xml"), "w").write('<!DOCTYPE r [<!ENTITY e "x">]>' + text)
PY
ls -l "$out_r" "$out_d"
