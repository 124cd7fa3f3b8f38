#!/usr/bin/env python3
"""An API that accepts Identity Connect access tokens, verified offline with PyJWT and the
broker's JWKS — the whole resource server is the `authorize` function below.

    python3 resource_server.py --issuer https://id.example.com \\
        --audience https://api-a.example.com --scope api:a --port 9001
    curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:9001/hello

Answers 200 {"hello": <sub>, "scope": ...} for a valid token meant for this API with the scope;
401 for a missing, invalid, expired or other-audience token; 403 without the scope.
Needs PyJWT with cryptography (`pip install 'PyJWT[crypto]'`).
"""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt

parser = argparse.ArgumentParser()
parser.add_argument("--issuer", required=True)
parser.add_argument("--audience", required=True, help="this API's identifier (an apiResources audience)")
parser.add_argument("--scope", required=True, help="the scope a caller needs")
parser.add_argument("--port", type=int, default=9001)
options = parser.parse_args()

# Fetches the JWKS once and again when a token names a key it has not seen (key rotation).
keys = jwt.PyJWKClient(f"{options.issuer}/.well-known/jwks.json")


def authorize(header):
    """The token's claims, or (status, reason) when the caller may not pass."""
    if not header or not header.startswith("Bearer "):
        return 401, "a bearer token is required"
    token = header[len("Bearer "):]
    try:
        claims = jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256", "ES256"],
                            audience=options.audience, issuer=options.issuer,
                            options={"require": ["exp", "iat", "nbf", "iss", "aud", "sub"]})
    except jwt.PyJWTError as error:
        return 401, str(error)
    if options.scope not in claims.get("scope", "").split():
        return 403, f"the scope {options.scope} is required"
    return claims


class API(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        result = authorize(self.headers.get("Authorization"))
        if isinstance(result, tuple):
            status, body = result[0], {"error": result[1]}
        else:
            status, body = 200, {"hello": result["sub"], "scope": result["scope"]}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


ThreadingHTTPServer(("127.0.0.1", options.port), API).serve_forever()
