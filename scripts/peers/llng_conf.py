#!/usr/bin/env python3
"""Writes a LemonLDAP::NG 2.16 configuration for a loopback OpenID Connect provider (test peer of the
openid-connect connector): lmConf-1.json and lemonldap-ng.ini under $LLNG_DIR. Demo authentication
(users dwho/dwho, rtyler/rtyler), one relying party "broker" (confidential, PKCE required, refresh
tokens, password grant allowed)."""
import json
import os

run_dir = os.environ["LLNG_DIR"]
port = os.environ.get("LLNG_PORT", "9300")
base = f"http://127.0.0.1:{port}"
redirects = os.environ.get("LLNG_REDIRECT_URIS", "http://127.0.0.1:8080/oauth/callback")
access_ttl = int(os.environ.get("LLNG_ACCESS_TTL", "3600"))


def read(name):
    with open(os.path.join(run_dir, name)) as handle:
        return handle.read()


with open("/var/lib/lemonldap-ng/conf/lmConf-1.json") as handle:
    conf = json.load(handle)
conf.update({
    "cfgNum": 1,
    "portal": base + "/",
    "domain": "127.0.0.1",
    "securedCookie": 0,
    "httpOnly": 1,
    "globalStorageOptions": {"Directory": f"{run_dir}/sessions", "LockDirectory": f"{run_dir}/sessions/lock",
                             "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256"},
    "persistentStorageOptions": {"Directory": f"{run_dir}/psessions", "LockDirectory": f"{run_dir}/psessions/lock"},
    "localSessionStorageOptions": {"cache_depth": 3, "cache_root": f"{run_dir}/cache", "default_expires_in": 600,
                                   "directory_umask": "007", "namespace": "lemonldap-ng-sessions"},
    "notification": 0,
    "checkUpdate": 0,
    "portalCheckLogins": 0,
    "loginHistoryEnabled": 0,
    "portalDisplayRegister": 0,
    "portalDisplayResetPassword": 0,
    "requireToken": 1,
    "trustedDomains": "127.0.0.1 localhost",
    "locationRules": {"127.0.0.1": {"default": "accept"}},
    "exportedVars": {"uid": "uid", "cn": "cn", "mail": "mail"},
    "macros": {"_whatToTrace": "$uid"},
    "issuerDBOpenIDConnectActivation": 1,
    "issuerDBOpenIDConnectPath": "^/oauth2/",
    "oidcServiceMetaDataIssuer": base,
    "oidcServicePrivateKeySig": read("oidc.key"),
    "oidcServicePublicKeySig": read("oidc.pub"),
    "oidcServiceKeyIdSig": "llng-test-key",
    "oidcServiceAllowAuthorizationCodeFlow": 1,
    "oidcServiceAllowImplicitFlow": 0,
    "oidcServiceAllowHybridFlow": 0,
    "oidcRPMetaDataOptions": {"broker": {
        "oidcRPMetaDataOptionsClientID": "broker",
        "oidcRPMetaDataOptionsClientSecret": "broker-secret",
        "oidcRPMetaDataOptionsPublic": 0,
        "oidcRPMetaDataOptionsRequirePKCE": 1,
        "oidcRPMetaDataOptionsRedirectUris": redirects,
        "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256",
        "oidcRPMetaDataOptionsBypassConsent": 1,
        "oidcRPMetaDataOptionsRefreshToken": 1,
        "oidcRPMetaDataOptionsAllowOffline": 1,
        "oidcRPMetaDataOptionsAllowPasswordGrant": 1,
        "oidcRPMetaDataOptionsIDTokenForceClaims": 1,
        "oidcRPMetaDataOptionsAccessTokenExpiration": access_ttl,
        "oidcRPMetaDataOptionsDisplayName": "Identity Connect",
        "oidcRPMetaDataOptionsUserIDAttr": "uid",
    }},
    "oidcRPMetaDataExportedVars": {"broker": {"email": "mail", "name": "cn", "preferred_username": "uid"}},
})
os.makedirs(f"{run_dir}/conf", exist_ok=True)
with open(f"{run_dir}/conf/lmConf-1.json", "w") as handle:
    json.dump(conf, handle, indent=1)
with open(f"{run_dir}/lemonldap-ng.ini", "w") as handle:
    handle.write(f"""[all]
logLevel = {os.environ.get('LLNG_LOGLEVEL', 'notice')}
checkTime = 1
[configuration]
type = File
dirName = {run_dir}/conf
localStorage = Cache::FileCache
localStorageOptions = {{ 'namespace' => 'lemonldap-ng-config', 'default_expires_in' => 600, 'cache_root' => '{run_dir}/cache', 'cache_depth' => 3 }}
[portal]
staticPrefix = /static
templateDir = /usr/share/lemonldap-ng/portal/templates
languages = en
[handler]
status = 0
""")
