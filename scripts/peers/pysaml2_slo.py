"""Sessions and single logout for the pysaml2 test IdP (pysaml2_idp.py).

The IdP remembers who signed in with a cookie, so a second AuthnRequest from the same browser is
answered without the login form (SSO), and single logout can end that session:

  GET  <prefix>/slo/redirect, POST <prefix>/slo/post
       SP-initiated: a LogoutRequest, which must be signed (query signature for HTTP-Redirect,
       enveloped for HTTP-POST) with the SP's signing certificate: the IdP session ends and a signed
       LogoutResponse goes back to the SP's SingleLogoutService. A LogoutResponse arriving here
       answers an IdP-initiated logout and ends on a page saying "logged out: <status>".
  GET  <prefix>/slo/initiate[?binding=post]
       IdP-initiated: a signed LogoutRequest (NameID and SessionIndex of this browser's sign-in) to
       the SP's SingleLogoutService; the IdP session ends at once.
  GET  /session    "signed in as <user>" or "no session" (tests look at both sides of a logout).

All SAML XML is made and signed by pysaml2; HTTP-Redirect query signatures (RSA-SHA256) are made
and checked here with `cryptography` over the parameters exactly as sent.
"""
import base64, html, re, secrets, threading, urllib.parse, zlib
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.s_utils import deflate_and_base64_encode
from saml2.saml import NameID
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

COOKIE = "p2idp"
SIG_HASHES = {"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": hashes.SHA256(),
              "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": hashes.SHA512(),
              "http://www.w3.org/2000/09/xmldsig#rsa-sha1": hashes.SHA1()}

sessions = {}             # cookie -> {"user": name, "sps": {sp entity id: (NameID, SessionIndex)}}
pending_logouts = {}      # LogoutRequest id the IdP sent -> SP entity id
lock = threading.Lock()


def session_of(environ):
    cookies = dict(part.strip().split("=", 1) for part in environ.get("HTTP_COOKIE", "").split(";") if "=" in part)
    with lock:
        return cookies.get(COOKIE), sessions.get(cookies.get(COOKIE, ""))


def start_session(user, sp, name_id, response_xml):
    """A new session for `user` with its association to `sp`; returns the Set-Cookie header value."""
    cookie = secrets.token_urlsafe(16)
    remember(cookie, user, sp, name_id, response_xml, new=True)
    return f"{COOKIE}={cookie}; Path=/; HttpOnly"


def remember(cookie, user, sp, name_id, response_xml, new=False):
    found = re.search(r'SessionIndex="([^"]+)"', response_xml)
    with lock:
        if new:
            sessions[cookie] = {"user": user, "sps": {}}
        if cookie in sessions:
            sessions[cookie]["sps"][sp] = (name_id, found.group(1) if found else None)


def end_session(cookie):
    with lock:
        sessions.pop(cookie or "", None)


def raw_query_part(raw_query, typ):
    raw = dict(part.split("=", 1) for part in raw_query.split("&") if "=" in part)
    return "&".join(f"{k}={raw[k]}" for k in (typ, "RelayState", "SigAlg") if k in raw).encode()


def check_query_signature(srv, sp, raw_query, params, typ):
    """An HTTP-Redirect message must carry a query signature by one of the SP's signing certificates."""
    if "Signature" not in params:
        raise ValueError(f"unsigned {typ} refused")
    digest = SIG_HASHES.get(params.get("SigAlg"))
    if digest is None:
        raise ValueError(f"unsupported SigAlg {params.get('SigAlg')}")
    signed = raw_query_part(raw_query, typ)
    for _, cert in srv.metadata.certs(sp, "spsso", "signing"):
        try:
            key = x509.load_der_x509_certificate(base64.b64decode(cert)).public_key()
            key.verify(base64.b64decode(params["Signature"]), signed, padding.PKCS1v15(), digest)
            return
        except InvalidSignature:
            pass
    raise ValueError(f"{typ} signature does not verify against the SP's signing certificate")


def redirect_url(location, typ, xml, relay_state, key_file):
    """An HTTP-Redirect URL carrying `xml`, its query signed with the IdP key (RSA-SHA256)."""
    args = [(typ, deflate_and_base64_encode(xml))]
    if relay_state:
        args.append(("RelayState", relay_state))
    args.append(("SigAlg", SIG_RSA_SHA256))
    signed = "&".join(urllib.parse.urlencode([arg]) for arg in args).encode()
    with open(key_file, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    args.append(("Signature", base64.b64encode(key.sign(signed, padding.PKCS1v15(), hashes.SHA256())).decode()))
    return location + ("&" if "?" in location else "?") + urllib.parse.urlencode(args)


def sp_logout_endpoint(srv, sp, binding):
    for endpoint in srv.metadata.single_logout_service(sp, binding, "spsso"):
        return endpoint.get("response_location") or endpoint["location"], endpoint["location"]
    raise ValueError(f"the SP {sp} has no {binding} SingleLogoutService")


def decode_message(value, redirect):
    data = base64.b64decode(value)
    return (zlib.decompress(data, -15) if redirect else data).decode()


def handle_slo(srv, key_file, environ, params, redirect, send, lock_):
    """<prefix>/slo/redirect and /slo/post: a LogoutRequest from the SP, or a LogoutResponse to ours."""
    binding = BINDING_HTTP_REDIRECT if redirect else BINDING_HTTP_POST
    cookie, _ = session_of(environ)
    if "SAMLResponse" in params:
        xml = decode_message(params["SAMLResponse"], redirect)
        answered = re.search(r'InResponseTo="([^"]+)"', xml)
        status = re.search(r'StatusCode Value="[^"]*:([A-Za-z]+)"', xml)
        with lock_:
            known = answered and pending_logouts.pop(answered.group(1), None)
        if not known:
            return send("400 Bad Request", "LogoutResponse to an unknown LogoutRequest")
        return send("200 OK", f"<p>logged out: {html.escape(status.group(1) if status else 'no status')}</p>")
    if "SAMLRequest" not in params:
        return send("400 Bad Request", "no SAMLRequest or SAMLResponse")
    with lock_:
        xml = decode_message(params["SAMLRequest"], redirect)
        sp = re.search(r"<(?:\w+:)?Issuer[^>]*>([^<]+)</", xml)
        if not sp or sp.group(1) not in srv.metadata.keys():
            return send("403 Forbidden", "LogoutRequest from an unknown SP")
        sp = sp.group(1)
        if redirect:
            check_query_signature(srv, sp, environ.get("QUERY_STRING", ""), params, "SAMLRequest")
        elif "Signature" not in xml:
            raise ValueError("unsigned LogoutRequest refused")
        # pysaml2 checks the Destination, and an enveloped signature against the SP's metadata.
        request = srv.parse_logout_request(params["SAMLRequest"], binding, relay_state=params.get("RelayState"))
        end_session(cookie)
        destination, _ = sp_logout_endpoint(srv, sp, binding)
        response = srv.create_logout_response(request.message, [binding], sign=not redirect,
                                              sign_alg=SIG_RSA_SHA256, digest_alg=DIGEST_SHA256)
    return send_message(srv, key_file, binding, "SAMLResponse", str(response), destination, params.get("RelayState", ""), send)


def initiate(srv, key_file, environ, query, send, lock_):
    """<prefix>/slo/initiate: the IdP ends this browser's session and tells the SP."""
    cookie, session = session_of(environ)
    if not session or not session["sps"]:
        return send("400 Bad Request", "no session to log out")
    binding = BINDING_HTTP_POST if query.get("binding") == "post" else BINDING_HTTP_REDIRECT
    sp, (name_id, session_index) = next(iter(session["sps"].items()))
    with lock_:
        _, destination = sp_logout_endpoint(srv, sp, binding)
        request_id, request = srv.create_logout_request(
            destination, sp, name_id=name_id, session_indexes=[session_index] if session_index else None,
            sign=binding == BINDING_HTTP_POST, sign_alg=SIG_RSA_SHA256, digest_alg=DIGEST_SHA256)
        pending_logouts[request_id] = sp
    end_session(cookie)
    return send_message(srv, key_file, binding, "SAMLRequest", str(request), destination, query.get("relay", "idp-initiated"), send)


def send_message(srv, key_file, binding, typ, xml, destination, relay_state, send):
    if binding == BINDING_HTTP_REDIRECT:
        return send("302 Found", "", location=redirect_url(destination, typ, xml, relay_state, key_file))
    page = srv.apply_binding(BINDING_HTTP_POST, xml, destination, relay_state, response=typ == "SAMLResponse")
    return send("200 OK", page["data"])


def name_id_copy(name_id):
    return NameID(format=name_id.format, text=name_id.text, sp_name_qualifier=name_id.sp_name_qualifier,
                  name_qualifier=name_id.name_qualifier)
