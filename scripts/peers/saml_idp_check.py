#!/usr/bin/env python3
"""Signs in at a SAML 2.0 IdP peer as the broker's SP would, without the broker, and checks the Response.
Standard library + the xmlsec1 and openssl commands only.

  python3 scripts/peers/saml_idp_check.py --metadata http://127.0.0.1:8490/metadata \\
      --binding redirect|post --user alice --password alicepw [--sign] [--sp-key K --sp-cert C]

1. reads the IdP metadata (entityID, SingleSignOnService per binding, signing certificate);
2. sends an AuthnRequest from SP http://127.0.0.1:8080/saml/metadata (ACS http://127.0.0.1:8080/saml/acs,
   NameIDPolicy emailAddress or --nameid-format) over HTTP-Redirect (DEFLATE + base64 + SigAlg/Signature when --sign) or
   HTTP-POST (base64, enveloped signature when --sign), with a RelayState;
3. acts as the tests' browser: keeps cookies, follows redirects, fills each form (password inputs get the
   password, user-looking inputs the user, hidden inputs keep their value) until a page holds a form whose
   action starts with the ACS; every form met is described on stderr;
4. checks what that form would POST to the ACS: SAMLResponse + the same RelayState; Response Destination =
   ACS, InResponseTo = request ID, Issuer = IdP, status Success; an EncryptedAssertion is decrypted with the
   SP key; Audience = SP, SubjectConfirmationData Recipient/InResponseTo; each Signature (Response,
   Assertion) verified with `xmlsec1 --verify` against the metadata's certificate and referencing its parent;
5. prints the decoded Response XML (decrypted, if it was encrypted) on stdout. Exit status 1 on a failed check.
SP key pair: --sp-key/--sp-cert, else $IDCONNECT_SAML_SP_KEY/$IDCONNECT_SAML_SP_CERT, else
${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp/sp.{key,crt} (scripts/peers/saml-sp-keys.sh).
"""
import argparse, base64, datetime, html.parser, http.cookiejar, os, secrets, subprocess, sys, tempfile
import urllib.error, urllib.parse, urllib.request, zlib
import xml.etree.ElementTree as ET

NS = {"md": "urn:oasis:names:tc:SAML:2.0:metadata", "ds": "http://www.w3.org/2000/09/xmldsig#",
      "samlp": "urn:oasis:names:tc:SAML:2.0:protocol", "saml": "urn:oasis:names:tc:SAML:2.0:assertion"}
BINDINGS = {"redirect": "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
            "post": "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"}
RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
USER_FIELDS = ("username", "user", "login", "uid", "j_username", "email", "user_name")
failures = []


def check(ok, what):
    print(("  ok   " if ok else "  FAIL ") + what, file=sys.stderr)
    if not ok:
        failures.append(what)


class Forms(html.parser.HTMLParser):
    """The forms of a page: [{action, method, inputs: [(name, type, value)]}]."""
    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action") or "", "method": (a.get("method") or "get").lower(),
                               "inputs": []})
        elif tag in ("input", "select", "textarea", "button") and self.forms and a.get("name"):
            self.forms[-1]["inputs"].append((a["name"], (a.get("type") or "text").lower(), a.get("value") or ""))


def xmlsec(*args):
    return subprocess.run(["xmlsec1", *args], capture_output=True, text=True)


def authn_request(a, idp, destination):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rid = "_" + secrets.token_hex(20)
    xml = (f'<samlp:AuthnRequest xmlns:samlp="{NS["samlp"]}" xmlns:saml="{NS["saml"]}" ID="{rid}" Version="2.0" '
           f'IssueInstant="{now}" Destination="{destination}" ProtocolBinding="{BINDINGS["post"]}" '
           f'AssertionConsumerServiceURL="{a.acs}"><saml:Issuer>{a.sp_entity}</saml:Issuer>'
           f'<samlp:NameIDPolicy Format="{a.nameid_format}" AllowCreate="true"/>'
           f'</samlp:AuthnRequest>')
    if a.sign and a.binding == "post":   # enveloped signature after the Issuer
        signature = (f'<ds:Signature xmlns:ds="{NS["ds"]}"><ds:SignedInfo>'
                     '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>'
                     f'<ds:SignatureMethod Algorithm="{RSA_SHA256}"/><ds:Reference URI="#{rid}"><ds:Transforms>'
                     '<ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>'
                     '<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms>'
                     '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/>'
                     '</ds:Reference></ds:SignedInfo><ds:SignatureValue/><ds:KeyInfo><ds:X509Data/></ds:KeyInfo>'
                     '</ds:Signature>')
        xml = xml.replace("</saml:Issuer>", "</saml:Issuer>" + signature)
        with tempfile.NamedTemporaryFile("w", suffix=".xml") as f:
            f.write(xml); f.flush()
            r = xmlsec("--sign", "--privkey-pem", f"{a.sp_key},{a.sp_cert}",
                       "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:AuthnRequest", f.name)
        if r.returncode:
            sys.exit("xmlsec1 --sign failed: " + r.stderr)
        xml = r.stdout
    return rid, xml


def redirect_query(a, xml, relay):
    deflated = zlib.compressobj(9, zlib.DEFLATED, -15)   # raw DEFLATE, no zlib header
    params = [("SAMLRequest", base64.b64encode(deflated.compress(xml.encode()) + deflated.flush()).decode()),
              ("RelayState", relay)]
    if a.sign:   # signature over the encoded query string, in this order
        params.append(("SigAlg", RSA_SHA256))
        signed = urllib.parse.urlencode(params).encode()
        sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", a.sp_key], input=signed,
                             capture_output=True, check=True).stdout
        params.append(("Signature", base64.b64encode(sig).decode()))
    return urllib.parse.urlencode(params)


def drive(a, opener, url, data):
    """Fill forms until one posts to the ACS; returns its fields."""
    sent_password = False
    for step in range(1, 11):
        try:
            with opener.open(url, data) as r:
                page, url = r.read().decode("utf-8", "replace"), r.geturl()
        except urllib.error.HTTPError as e:
            sys.exit(f"HTTP {e.code} at {e.url}:\n{e.read().decode('utf-8', 'replace')[:3000]}")
        parser = Forms()
        parser.feed(page)
        if not parser.forms:
            sys.exit(f"no form at {url}:\n{page[:3000]}")
        form = parser.forms[0]
        action = urllib.parse.urljoin(url, form["action"] or url)
        described = ", ".join(f"{n}({t})" for n, t, _ in form["inputs"])
        print(f"page {step}: {url}\n  form {form['method'].upper()} {action}: {described}", file=sys.stderr)
        if sent_password and any(t == "password" for _, t, _ in form["inputs"]):
            sys.exit("login refused: the login form came back")
        fields = {}
        for name, typ, value in form["inputs"]:
            if typ == "password":
                fields[name], sent_password = a.password, True
            elif name.lower() in USER_FIELDS and typ in ("text", "email"):
                fields[name] = a.user
            elif typ in ("hidden", "text"):
                fields[name] = value
        if action.startswith(a.acs):
            return fields
        if urllib.parse.urlsplit(action)[:2] != urllib.parse.urlsplit(url)[:2]:
            sys.exit(f"the form leaves the IdP for {action}, not for the ACS {a.acs}")
        body = urllib.parse.urlencode(fields)
        if form["method"] == "post":
            url, data = action, body.encode()
        else:
            url, data = action.split("?")[0] + "?" + body, None
    sys.exit("no form posting to the ACS after 10 pages")


def verify_signature(a, doc_path, xpath, parent, what, idp_cert):
    """xmlsec1 --verify of the Signature at xpath with the IdP certificate only; reports the algorithms."""
    sig = parent.find("ds:Signature", NS)
    if sig is None:
        check(False, f"{what} is signed")
        return
    ref = sig.find("ds:SignedInfo/ds:Reference", NS).get("URI")
    alg = sig.find("ds:SignedInfo/ds:SignatureMethod", NS).get("Algorithm")
    digest = sig.find("ds:SignedInfo/ds:Reference/ds:DigestMethod", NS).get("Algorithm")
    check(ref == "#" + parent.get("ID"), f"{what} signature references its own ID ({ref})")
    r = xmlsec("--verify", "--enabled-reference-uris", "same-doc", "--enabled-key-data", "raw-x509-cert",
               "--pubkey-cert-pem", idp_cert, "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:protocol:Response",
               "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion", "--node-xpath", xpath, doc_path)
    check(r.returncode == 0, f"{what} signature verifies with xmlsec1 ({alg.rsplit('#')[-1]}, "
                             f"digest {digest.rsplit('#')[-1]})" + ("" if r.returncode == 0 else ": " + r.stderr))


def main():
    peers = os.environ.get("IDCONNECT_PEERS_DIR", "/tmp/idconnect-peers")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--metadata", required=True, help="IdP metadata URL")
    ap.add_argument("--binding", choices=BINDINGS, default="redirect", help="binding of the AuthnRequest")
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default="alicepw")
    ap.add_argument("--sign", action="store_true", help="sign the AuthnRequest with the SP key")
    ap.add_argument("--nameid-format", default="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
                    help="NameIDPolicy Format of the request")
    ap.add_argument("--sp-entity", default="http://127.0.0.1:8080/saml/metadata")
    ap.add_argument("--acs", default="http://127.0.0.1:8080/saml/acs")
    ap.add_argument("--sp-key", default=os.environ.get("IDCONNECT_SAML_SP_KEY", f"{peers}/saml-sp/sp.key"))
    ap.add_argument("--sp-cert", default=os.environ.get("IDCONNECT_SAML_SP_CERT", f"{peers}/saml-sp/sp.crt"))
    a = ap.parse_args()

    with urllib.request.urlopen(a.metadata) as r:
        md = ET.fromstring(r.read())
    idp_entity = md.get("entityID")
    sso = {e.get("Binding"): e.get("Location") for e in md.iterfind(".//md:IDPSSODescriptor/md:SingleSignOnService", NS)}
    cert = md.find(".//md:IDPSSODescriptor/md:KeyDescriptor[@use='signing']//ds:X509Certificate", NS)
    cert = cert if cert is not None else md.find(".//md:IDPSSODescriptor/md:KeyDescriptor//ds:X509Certificate", NS)
    print(f"IdP {idp_entity}: SSO {sso}", file=sys.stderr)
    check(all(b in sso for b in BINDINGS.values()), "metadata advertises SSO over HTTP-Redirect and HTTP-POST")
    work = tempfile.mkdtemp(prefix="saml-idp-check.")
    idp_cert = os.path.join(work, "idp.crt")
    body = "".join(cert.text.split())
    with open(idp_cert, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
                + "\n-----END CERTIFICATE-----\n")

    destination = sso[BINDINGS[a.binding]]
    rid, request = authn_request(a, idp_entity, destination)
    relay = "relay-" + secrets.token_urlsafe(8)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    if a.binding == "redirect":
        fields = drive(a, opener, destination + "?" + redirect_query(a, request, relay), None)
    else:
        b64 = base64.b64encode(request.encode()).decode()
        fields = drive(a, opener, destination, urllib.parse.urlencode({"SAMLRequest": b64, "RelayState": relay}).encode())

    check("SAMLResponse" in fields, "the ACS form carries SAMLResponse")
    check(fields.get("RelayState") == relay, f"RelayState echoed ({fields.get('RelayState')})")
    raw = base64.b64decode(fields["SAMLResponse"])
    doc = os.path.join(work, "response.xml")
    with open(doc, "wb") as f:
        f.write(raw)
    resp = ET.fromstring(raw)
    check(resp.tag == f"{{{NS['samlp']}}}Response", "it is a samlp:Response")
    check(resp.get("Destination") == a.acs, f"Response Destination = ACS ({resp.get('Destination')})")
    check(resp.get("InResponseTo") == rid, "Response InResponseTo = the request ID")
    check(resp.findtext("saml:Issuer", namespaces=NS) == idp_entity, "Response Issuer = IdP entityID")
    status = resp.find("samlp:Status/samlp:StatusCode", NS).get("Value")
    check(status.endswith(":Success"), f"status {status}")
    verify_signature(a, doc, "/*[local-name()='Response']/*[local-name()='Signature']", resp, "Response", idp_cert)

    encrypted = resp.find("saml:EncryptedAssertion", NS)
    xpath = "/*[local-name()='Response']/*[local-name()='Assertion']/*[local-name()='Signature']"
    if encrypted is not None:
        method = encrypted.find(".//{http://www.w3.org/2001/04/xmlenc#}EncryptionMethod").get("Algorithm")
        r = xmlsec("--decrypt", "--privkey-pem", f"{a.sp_key},{a.sp_cert}", doc)
        check(r.returncode == 0, f"EncryptedAssertion ({method.rsplit('#')[-1]}) decrypts with the SP key"
                                 + ("" if r.returncode == 0 else ": " + r.stderr))
        if r.returncode:
            sys.exit(1)
        doc = os.path.join(work, "response-decrypted.xml")
        with open(doc, "w") as f:
            f.write(r.stdout)
        raw, resp = r.stdout.encode(), ET.fromstring(r.stdout.encode())
        xpath = xpath.replace("/*[local-name()='Assertion']",
                              "/*[local-name()='EncryptedAssertion']/*[local-name()='Assertion']")
    assertion = resp.find(".//saml:Assertion", NS)
    check(assertion is not None, "one Assertion")
    verify_signature(a, doc, xpath, assertion, "Assertion", idp_cert)
    check(assertion.findtext("saml:Conditions/saml:AudienceRestriction/saml:Audience", namespaces=NS) == a.sp_entity,
          "Audience = SP entityID")
    scd = assertion.find("saml:Subject/saml:SubjectConfirmation/saml:SubjectConfirmationData", NS)
    check(scd.get("Recipient") == a.acs and scd.get("InResponseTo") == rid,
          "SubjectConfirmationData Recipient = ACS, InResponseTo = request ID")
    name_id = assertion.find("saml:Subject/saml:NameID", NS)
    print(f"  NameID {name_id.text} ({name_id.get('Format')})", file=sys.stderr)
    for at in assertion.iterfind("saml:AttributeStatement/saml:Attribute", NS):
        values = [v.text for v in at.iterfind("saml:AttributeValue", NS)]
        print(f"  Attribute {at.get('Name')} ({at.get('NameFormat')}, {at.get('FriendlyName')}) = {values}",
              file=sys.stderr)
    print(raw.decode())
    print(f"{len(failures)} failed checks" if failures else "all checks passed", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
