"""Token exchange rows (docs/token-exchange.md, docs/native-sso.md): a data link's back end
trading the user's access token for the upstream token (the vault opened, no refresh due), and a
second app on the device trading the first app's ID token and device secret for its own tokens."""
import urllib.parse

import broker
import load

GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS = "urn:ietf:params:oauth:token-type:access_token"
ID = "urn:ietf:params:oauth:token-type:id_token"
DEVICE_SECRET = "urn:x-oath:params:oauth:token-type:device-secret"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def rows(port, common, access_token):
    basic = {"Authorization": broker.basic_header()}
    upstream = urllib.parse.urlencode({"grant_type": GRANT, "client_id": broker.APP_KEY, "subject_token": access_token,
                                       "subject_token_type": ACCESS, "audience": "authlink"})
    first = broker.password_grant(port, "authlink", "alice", "alicepw", scope="openid device_sso")
    if "device_secret" not in first:
        raise SystemExit(f"native SSO bench: no device secret in {sorted(first)}")
    shared = urllib.parse.urlencode({"grant_type": GRANT, "client_id": broker.APP_KEY, "subject_token": first["id_token"],
                                     "subject_token_type": ID, "actor_token": first["device_secret"],
                                     "actor_token_type": DEVICE_SECRET, "scope": "openid"})
    return [
        load.run_wrk("token exchange → upstream token", **common, method="POST", path="/oauth/token", headers={**basic, **FORM},
                     body=upstream),
        load.run_wrk("native SSO (second app's tokens)", **common, method="POST", path="/oauth/token", headers={**basic, **FORM},
                     body=shared),
    ]
