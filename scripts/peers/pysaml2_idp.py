#!/usr/bin/env python3
"""SAML 2.0 IdP on loopback for the saml connector tests, run by pysaml2-idp-start.sh. All SAML work
(parsing requests, building, signing and encrypting responses, metadata) is pysaml2's `Server`; this
file adds a login form, two users and the HTTP plumbing.

  pysaml2_idp.py --dir RUNTIME_DIR --port 8490 --sp-metadata sp-metadata.xml

Endpoints (entityID http://127.0.0.1:PORT/metadata):
  GET  /metadata               IdP metadata: SSO over HTTP-Redirect and HTTP-POST, signing certificate
  GET  /sso/redirect           AuthnRequest, HTTP-Redirect binding (SAMLRequest, RelayState[, SigAlg, Signature])
  POST /sso/post               AuthnRequest, HTTP-POST binding (SAMLRequest, RelayState)
       both answer with the login form: POST /login, fields username, password, hidden key
  POST /login                  good credentials: a page whose form auto-POSTs SAMLResponse + RelayState to the ACS
  /enc/<cipher>/...            the same IdP (same entityID and key) whose Responses carry an EncryptedAssertion,
                               encrypted to the SP's encryption certificate with RSA-OAEP-MGF1P (SHA-1) and
                               <cipher>: aes128-cbc, aes256-cbc, aes128-gcm, aes256-gcm. Point the SP at
                               /enc/<cipher>/metadata to get its SSO endpoints.
  /post-slo/...                the same IdP whose metadata offers single logout over HTTP-POST only.
  /rollover/...                an IdP (entityID http://127.0.0.1:PORT/rollover/metadata) whose metadata lists two
                               signing certificates (idp.crt, idp2.crt); it signs with the first until
                               POST /rollover/use-new-key, then with the second (POST /rollover/use-old-key: back).
  /signed/metadata             the main IdP's metadata with an enveloped signature by its own key (idp.crt).
  /slo/..., /session           sessions and single logout: see pysaml2_slo.py. A browser that signed in is
                               answered without the login form until it logs out (or the request asks ForceAuthn).
Only SPs in --sp-metadata are served, only at their ACS URLs there. Response and Assertion are both signed
(RSA-SHA256, SHA-256 digests). NameID: emailAddress (alice@example.org) unless the request's NameIDPolicy
asks for unspecified (uid), persistent or transient. Attributes: urn:oid names (NameFormat uri) with
FriendlyName. A signed AuthnRequest must verify against the SP's signing certificate; unsigned ones are
accepted.
"""
import argparse, html, os, re, secrets, subprocess, sys, threading, traceback, urllib.parse, warnings
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pysaml2_slo as slo
warnings.filterwarnings("ignore", message="CFB has been moved")   # pysaml2 on a recent cryptography
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.authn_context import PASSWORD
from saml2.config import IdPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import (NAME_FORMAT_URI, NAMEID_FORMAT_EMAILADDRESS, NAMEID_FORMAT_PERSISTENT,
                        NAMEID_FORMAT_TRANSIENT, NAMEID_FORMAT_UNSPECIFIED, NameID)
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

USERS = {
    "alice": ("alicepw", {"uid": ["alice"], "mail": ["alice@example.org"], "displayName": ["Alice Liddell"],
                          "givenName": ["Alice"], "sn": ["Liddell"], "eduPersonAffiliation": ["member", "staff"],
                          "isMemberOf": ["admins", "developers"]}),
    "bob": ("bobpw", {"uid": ["bob"], "mail": ["bob@example.org"], "displayName": ["Bob Builder"],
                      "givenName": ["Bob"], "sn": ["Builder"], "eduPersonAffiliation": ["member"],
                      "isMemberOf": ["developers"]}),
}
# /enc/<cipher>: EncryptionMethod of the EncryptedData, and the session key xmlsec1 makes for it
CIPHERS = {
    "aes128-cbc": ("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "aes-128"),
    "aes256-cbc": ("http://www.w3.org/2001/04/xmlenc#aes256-cbc", "aes-256"),
    "aes128-gcm": ("http://www.w3.org/2009/xmlenc11#aes128-gcm", "aes-128"),
    "aes256-gcm": ("http://www.w3.org/2009/xmlenc11#aes256-gcm", "aes-256"),
}
LOGIN_FORM = """<!doctype html><html><head><title>pysaml2 IdP login</title></head><body>
<h1>pysaml2 IdP login</h1>{error}
<form method="post" action="/login"><input type="hidden" name="key" value="{key}">
<label>Username <input name="username" autofocus></label>
<label>Password <input type="password" name="password"></label>
<button type="submit">Sign in</button></form></body></html>"""

pending = {}   # login form key -> (prefix, Server, AuthnRequest, RelayState, cipher or None, ACS URL)
lock = threading.Lock()   # pysaml2's Server is not meant for concurrent use
rollover = {"key": "idp"}   # which key the /rollover IdP signs with: idp (idp.crt) or idp2 (idp2.crt)


def make_server_for(args, prefix, cipher, key="idp"):
    """A pysaml2 Server whose endpoints live under prefix; the same entityID and key for every prefix but
    /rollover, which is an IdP of its own (its entityID, and `key`)."""
    root = f"http://127.0.0.1:{args.port}"
    entity = f"{root}/rollover/metadata" if prefix == "/rollover" else f"{root}/metadata"
    slo_endpoints = [(f"{root}{prefix}/slo/post", BINDING_HTTP_POST)]
    if prefix != "/post-slo":
        slo_endpoints.insert(0, (f"{root}{prefix}/slo/redirect", BINDING_HTTP_REDIRECT))
    conf = IdPConfig()
    conf.load({
        "entityid": entity,
        "service": {"idp": {
            "name": "idconnect pysaml2 test IdP",
            "endpoints": {"single_sign_on_service": [(f"{root}{prefix}/sso/redirect", BINDING_HTTP_REDIRECT),
                                                     (f"{root}{prefix}/sso/post", BINDING_HTTP_POST)],
                          "single_logout_service": slo_endpoints},
            "policy": {"default": {"lifetime": {"minutes": 5}, "attribute_restrictions": None,
                                   "name_form": NAME_FORMAT_URI}},
            "name_id_format": [NAMEID_FORMAT_EMAILADDRESS, NAMEID_FORMAT_UNSPECIFIED, NAMEID_FORMAT_PERSISTENT,
                               NAMEID_FORMAT_TRANSIENT],
            "want_authn_requests_signed": False,
            "sign_response": True, "sign_assertion": True,
        }},
        "key_file": os.path.join(args.dir, f"{key}.key"), "cert_file": os.path.join(args.dir, f"{key}.crt"),
        "metadata": {"local": [args.sp_metadata]},
        "xmlsec_binary": "/usr/bin/xmlsec1",
    })
    srv = Server(config=conf)
    if cipher:
        # pysaml2 always asks xmlsec1 for 3DES-CBC: substitute the cipher (and session key) of this prefix
        uri, session_key = CIPHERS[cipher]
        encrypt = srv.sec.encrypt_assertion

        def encrypt_assertion(statement, enc_key, template, key_type=None, node_xpath=None):
            template.encryption_method.algorithm = uri
            return encrypt(statement, enc_key, template, session_key, node_xpath)
        srv.sec.encrypt_assertion = encrypt_assertion
    return srv, create_metadata_string(None, config=conf, valid=24, sign=False).decode()


def with_second_certificate(metadata, cert_file):
    """The metadata with another signing KeyDescriptor (the certificate in cert_file) after the first."""
    with open(cert_file) as f:
        body = "".join(line.strip() for line in f if not line.startswith("-----"))
    first = re.search(r"<(\w+:)?KeyDescriptor use=\"signing\">[\s\S]*?</\1?KeyDescriptor>", metadata)
    second = re.sub(r"(X509Certificate>)[^<]+(</)", lambda m: m.group(1) + body + m.group(2), first.group(0))
    return metadata[:first.end()] + second + metadata[first.end():]


def name_id_for(srv, msg, attrs, sp):
    fmt = msg.name_id_policy.format if msg.name_id_policy is not None and msg.name_id_policy.format else None
    if fmt in (None, NAMEID_FORMAT_EMAILADDRESS):
        return NameID(format=NAMEID_FORMAT_EMAILADDRESS, text=attrs["mail"][0])
    if fmt == NAMEID_FORMAT_UNSPECIFIED:
        return NameID(format=fmt, text=attrs["uid"][0])
    return srv.ident.construct_nameid(attrs["uid"][0], sp_name_qualifier=sp, name_id_policy=msg.name_id_policy)


def application(args):
    prefixes = {"": None, "/post-slo": None, "/rollover": None, **{f"/enc/{cipher}": cipher for cipher in CIPHERS}}
    servers = {}   # (prefix, key) -> (Server, metadata), made on first use (each takes ~0.15 s)

    def server(prefix):
        key = rollover["key"] if prefix == "/rollover" else "idp"
        with lock:
            if (prefix, key) not in servers:
                srv, metadata = make_server_for(args, prefix, prefixes[prefix], key)
                if prefix == "/rollover":   # both certificates, whichever key signs
                    other = "idp2" if key == "idp" else "idp"
                    metadata = with_second_certificate(metadata, os.path.join(args.dir, f"{other}.crt"))
                servers[(prefix, key)] = (srv, metadata)
            return servers[(prefix, key)]

    def key_file(prefix):
        return os.path.join(args.dir, (rollover["key"] if prefix == "/rollover" else "idp") + ".key")

    def answer(prefix, srv, msg, relay, cipher, acs, user, cookie=None):
        """The auto-posting Response page for `user`; starts or extends the browser's IdP session."""
        attrs, sp = USERS[user][1], msg.issuer.text
        name_id = name_id_for(srv, msg, attrs, sp)
        response = srv.create_authn_response(
            attrs, in_response_to=msg.id, destination=acs, sp_entity_id=sp, name_id=name_id,
            authn={"class_ref": PASSWORD, "authn_auth": f"http://127.0.0.1:{args.port}/metadata"},
            sign_response=True, sign_assertion=True, sign_alg=SIG_RSA_SHA256, digest_alg=DIGEST_SHA256,
            encrypt_assertion=cipher is not None, encrypt_assertion_self_contained=True)
        page = srv.apply_binding(BINDING_HTTP_POST, str(response), acs, relay, response=True)
        if cookie:
            slo.remember(cookie, user, sp, slo.name_id_copy(name_id), str(response))
            return page["data"], None
        return page["data"], slo.start_session(user, sp, slo.name_id_copy(name_id), str(response))

    server("")   # fail at start on a bad SP metadata file
    def app(environ, start):
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        query = dict(urllib.parse.parse_qsl(environ.get("QUERY_STRING", "")))
        form = {}
        if method == "POST":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)).decode()
            form = dict(urllib.parse.parse_qsl(body))

        def send(status, body, ctype="text/html; charset=utf-8", location=None, cookie=None):
            headers = [("Content-Type", ctype), ("Cache-Control", "no-store")]
            if location:
                headers.append(("Location", location))
            if cookie:
                headers.append(("Set-Cookie", cookie))
            start(status, headers)
            return [body.encode()]

        prefix, path = re.fullmatch(r"(/enc/[a-z0-9-]+|/post-slo|/rollover|/signed)?(/.*)", path).groups()
        prefix = prefix or ""
        try:
            if prefix == "/signed" and path == "/metadata":
                signed = create_metadata_string(None, config=server("")[0].config, valid=24, sign=True,
                                                sign_alg=SIG_RSA_SHA256, digest_alg=DIGEST_SHA256)
                return send("200 OK", signed if isinstance(signed, str) else signed.decode(), "application/samlmetadata+xml")
            if prefix == "/rollover" and path in ("/use-new-key", "/use-old-key") and method == "POST":
                rollover["key"] = "idp2" if path == "/use-new-key" else "idp"
                return send("200 OK", f"signing with {rollover['key']}.key")
            if path == "/session" and not prefix:
                _, session = slo.session_of(environ)
                return send("200 OK", f"signed in as {session['user']}" if session else "no session", "text/plain")
            if path in ("/slo/redirect", "/slo/post") and prefix in prefixes:
                return slo.handle_slo(server(prefix)[0], key_file(prefix), environ, query if path == "/slo/redirect" else form,
                                      path == "/slo/redirect", send, lock)
            if path == "/slo/initiate" and prefix in prefixes:
                return slo.initiate(server(prefix)[0], key_file(prefix), environ, query, send, lock)
            if path == "/metadata" and prefix in prefixes:
                return send("200 OK", server(prefix)[1], "application/samlmetadata+xml")
            if path in ("/sso/redirect", "/sso/post") and prefix in prefixes:
                srv, cipher = server(prefix)[0], prefixes[prefix]
                redirect = path == "/sso/redirect"
                params = query if redirect else form
                if "SAMLRequest" not in params:
                    return send("400 Bad Request", "no SAMLRequest")
                with lock:
                    req = srv.parse_authn_request(params["SAMLRequest"],
                                                  BINDING_HTTP_REDIRECT if redirect else BINDING_HTTP_POST)
                    msg = req.message
                    sp = msg.issuer.text if msg.issuer is not None else None
                    if sp not in srv.metadata.keys():
                        return send("403 Forbidden", f"unknown service provider {html.escape(str(sp))}")
                    if redirect and "Signature" in params:   # pysaml2 checks these only over a re-encoded query
                        slo.check_query_signature(srv, sp, environ.get("QUERY_STRING", ""), params, "SAMLRequest")
                    acs = srv.response_args(msg, [BINDING_HTTP_POST])["destination"]   # the SP's, from metadata
                    cookie, session = slo.session_of(environ)
                    if session and str(msg.force_authn).lower() not in ("true", "1"):   # SSO: signed in already
                        page, _ = answer(prefix, srv, msg, params.get("RelayState", ""), cipher, acs, session["user"], cookie)
                        return send("200 OK", page)
                    key = secrets.token_urlsafe(16)
                    pending[key] = (prefix, srv, msg, params.get("RelayState", ""), cipher, acs)
                    while len(pending) > 1000:
                        pending.pop(next(iter(pending)))
                return send("200 OK", LOGIN_FORM.format(error="", key=key))
            if path == "/login" and not prefix and method == "POST":
                key = form.get("key", "")
                if key not in pending:
                    return send("400 Bad Request", "unknown or expired login state")
                user = USERS.get(form.get("username", ""))
                if not user or not secrets.compare_digest(user[0], form.get("password", "")):
                    return send("200 OK", LOGIN_FORM.format(error="<p>Invalid username or password</p>", key=key))
                with lock:
                    entry = pending.pop(key, None)
                    if entry is None:
                        return send("400 Bad Request", "login state already used")
                    entry_prefix, srv, msg, relay, cipher, acs = entry
                    page, cookie = answer(entry_prefix, srv, msg, relay, cipher, acs, form.get("username", ""))
                return send("200 OK", page, cookie=cookie)
            return send("404 Not Found", "not found")
        except Exception as e:   # a refused request: show why (tests print the page)
            traceback.print_exc()
            return send("400 Bad Request", f"<pre>{html.escape(repr(e))}</pre>")
    return app


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Handler(WSGIRequestHandler):
    def log_message(self, fmt, *a):
        sys.stderr.write("%s\n" % (fmt % a))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=8490)
    ap.add_argument("--sp-metadata", required=True)
    args = ap.parse_args()
    for name in ("idp", "idp2"):   # idp2: the /rollover IdP's next key
        key = os.path.join(args.dir, f"{name}.key")
        if not os.path.exists(key):
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj",
                            f"/CN={name}.pysaml2-idp.test", "-keyout", key, "-out", os.path.join(args.dir, f"{name}.crt")],
                           check=True, capture_output=True)
    httpd = make_server("127.0.0.1", args.port, application(args),
                        server_class=ThreadingServer, handler_class=Handler)
    print(f"pysaml2 IdP on http://127.0.0.1:{args.port}/metadata", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
