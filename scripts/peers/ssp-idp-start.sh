#!/usr/bin/env bash
# Starts SimpleSAMLphp 1.19 (Debian package) as a SAML 2.0 IdP on 127.0.0.1 for the saml connector
# tests, served by PHP's built-in web server in its own process group; waits for its metadata.
#   metadata http://127.0.0.1:$SSP_PORT/saml2/idp/metadata.php (= entityID; a new certificate each start)
#   SSO      /saml2/idp/SSOService.php (HTTP-Redirect and HTTP-POST)
#   login    exampleauth form /module.php/core/loginuserpass.php: username, password, hidden AuthState
#   users    alice / alicepw, bob / bobpw     signs Response and Assertion (RSA-SHA256)
#   SP       the one of $SAML_SP_DIR/sp-metadata.xml (saml-sp-keys.sh, run here when missing)
#   SLO      /saml2/idp/SingleLogoutService.php (HTTP-Redirect): LogoutRequests from the SP must be signed with
#            the SP key; the IdP signs its own. IdP-initiated: ...SingleLogoutService.php?ReturnTo=<url>
#            (ReturnTo on 127.0.0.1) logs the browser's session out of every SP, then goes to ReturnTo.
#   sessions the IdP session lasts 8 hours (SessionNotOnOrAfter); assertions are valid 5 minutes
# Env: SSP_PORT (8480)  SSP_DIR (${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/ssp-idp, wiped)
#      SAML_SP_DIR (${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp)
#      SSP_VALIDATE_AUTHNREQUEST=1  refuse AuthnRequests not signed with the SP key (default: not checked)
#      SSP_ENCRYPT_ASSERTIONS=1     EncryptedAssertion (AES-128-CBC, RSA-OAEP-MGF1P) to the SP certificate
# Needs: simplesamlphp php8.2-cli php8.2-xml php8.2-mbstring ... (scripts/install-deps.sh); lighttpd is
# only there for the package's web-server dependency and is never started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SSP_PORT=${SSP_PORT:-8480}
SSP_DIR=${SSP_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/ssp-idp}
export SAML_SP_DIR=${SAML_SP_DIR:-${IDCONNECT_PEERS_DIR:-/tmp/idconnect-peers}/saml-sp}
www=/usr/share/simplesamlphp/www
[ -d "$www" ] && command -v php >/dev/null || { echo "SimpleSAMLphp not installed: run scripts/install-deps.sh" >&2; exit 1; }
if [ -f "$SSP_DIR/server.pid" ] && kill -0 "$(cat "$SSP_DIR/server.pid")" 2>/dev/null; then
  echo "SimpleSAMLphp already running (pid $(cat "$SSP_DIR/server.pid"))" >&2; exit 1
fi
started=$(date +%s%N)
[ -f "$SAML_SP_DIR/sp-metadata.xml" ] || "$here/saml-sp-keys.sh" >/dev/null
sp_entity=$(sed -n 's/.*entityID="\([^"]*\)".*/\1/p' "$SAML_SP_DIR/sp-metadata.xml")
sp_acs=$(sed -n 's/.*AssertionConsumerService.*Location="\([^"]*\)".*/\1/p' "$SAML_SP_DIR/sp-metadata.xml")
sp_slo=$(sed -n 's/.*SingleLogoutService.*HTTP-Redirect.*Location="\([^"]*\)".*/\1/p' "$SAML_SP_DIR/sp-metadata.xml")
sp_cert=$(grep -v -- '-----' "$SAML_SP_DIR/sp.crt" | tr -d '\n')
base="http://127.0.0.1:$SSP_PORT"
rm -rf "$SSP_DIR"; mkdir -p "$SSP_DIR"/{config,metadata,cert,data,tmp,log,sessions}
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=ssp-idp.test" \
  -keyout "$SSP_DIR/cert/idp.key" -out "$SSP_DIR/cert/idp.crt" 2>/dev/null

# Debian's config.php, without its require of the secrets in /var/lib/simplesamlphp, then ours.
grep -v "secrets.inc.php" /etc/simplesamlphp/config.php >"$SSP_DIR/config/config.php"
cat >>"$SSP_DIR/config/config.php" <<PHP
\$config['baseurlpath'] = '$base/';
\$config['certdir'] = '$SSP_DIR/cert/';
\$config['loggingdir'] = '$SSP_DIR/log/';
\$config['datadir'] = '$SSP_DIR/data/';
\$config['tempdir'] = '$SSP_DIR/tmp';
\$config['metadatadir'] = '$SSP_DIR/metadata/';
\$config['metadata.sources'] = [['type' => 'flatfile']];
\$config['enable.saml20-idp'] = true;
\$config['module.enable'] = ['exampleauth' => true, 'core' => true, 'saml' => true];
\$config['admin.checkforupdates'] = false;          // no calls out to GitHub
\$config['auth.adminpassword'] = '$(head -c 18 /dev/urandom | base64)';
\$config['secretsalt'] = '$(head -c 24 /dev/urandom | base64)';
\$config['session.cookie.secure'] = false;         // plain http on loopback
\$config['session.cookie.samesite'] = null;
\$config['language.cookie.secure'] = false;
\$config['language.cookie.samesite'] = null;
\$config['store.type'] = 'phpsession';
\$config['session.phpsession.savepath'] = '$SSP_DIR/sessions';
\$config['logging.handler'] = 'file';
\$config['logging.logfile'] = 'simplesamlphp.log';
\$config['logging.level'] = SimpleSAML\Logger::INFO;
\$config['debug'] = ['saml' => true, 'backtraces' => true, 'validatexml' => false];   // SAML messages in the log
\$config['trusted.url.domains'] = ['127.0.0.1', '127.0.0.1:$SSP_PORT'];
\$config['production'] = false;
PHP

# exampleauth users: attribute names go out as they are, NameFormat basic
cat >"$SSP_DIR/config/authsources.php" <<'PHP'
<?php
$config = [
    'example-userpass' => [
        'exampleauth:UserPass',
        'alice:alicepw' => [
            'uid' => ['alice'], 'mail' => ['alice@example.org'], 'displayName' => ['Alice Liddell'],
            'givenName' => ['Alice'], 'sn' => ['Liddell'], 'eduPersonAffiliation' => ['member', 'staff'],
            'isMemberOf' => ['admins', 'developers'],
        ],
        'bob:bobpw' => [
            'uid' => ['bob'], 'mail' => ['bob@example.org'], 'displayName' => ['Bob Builder'],
            'givenName' => ['Bob'], 'sn' => ['Builder'], 'eduPersonAffiliation' => ['member'],
            'isMemberOf' => ['developers'],
        ],
    ],
];
PHP

binding=urn:oasis:names:tc:SAML:2.0:bindings
cat >"$SSP_DIR/metadata/saml20-idp-hosted.php" <<PHP
<?php
\$metadata['$base/saml2/idp/metadata.php'] = [
    'host' => '__DEFAULT__',
    'privatekey' => 'idp.key',
    'certificate' => 'idp.crt',
    'auth' => 'example-userpass',
    'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    'saml20.sign.response' => true,
    'saml20.sign.assertion' => true,
    'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    // SSOService.php takes both; without this the metadata lists HTTP-Redirect only
    'SingleSignOnServiceBinding' => ['$binding:HTTP-Redirect', '$binding:HTTP-POST'],
    'SingleLogoutServiceBinding' => ['$binding:HTTP-Redirect'],
    'sign.logout' => true,
    // a NameID per format the SP may ask for: emailAddress (mail, the SP's default), unspecified (uid),
    // persistent (hash of uid), transient (random)
    'authproc' => [
        10 => ['class' => 'saml:AttributeNameID', 'attribute' => 'mail',
               'Format' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
        11 => ['class' => 'saml:AttributeNameID', 'attribute' => 'uid',
               'Format' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
        12 => ['class' => 'saml:PersistentNameID', 'attribute' => 'uid'],
        13 => ['class' => 'saml:TransientNameID'],
    ],
];
PHP

# the broker, the only SP served (only at its ACS)
cat >"$SSP_DIR/metadata/saml20-sp-remote.php" <<PHP
<?php
\$metadata['$sp_entity'] = [
    'AssertionConsumerService' => [['Binding' => '$binding:HTTP-POST', 'Location' => '$sp_acs', 'index' => 0]],
    // single logout: both ways, over HTTP-Redirect; logout messages are signed and must be signed
    'SingleLogoutService' => [['Binding' => '$binding:HTTP-Redirect', 'Location' => '$sp_slo']],
    'sign.logout' => true,
    'validate.logout' => true,
    'NameIDFormat' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    'certData' => '$sp_cert',
    'validate.authnrequest' => $([ "${SSP_VALIDATE_AUTHNREQUEST:-0}" = 1 ] && echo true || echo false),
    'assertion.encryption' => $([ "${SSP_ENCRYPT_ASSERTIONS:-0}" = 1 ] && echo true || echo false),
];
PHP

# setsid: PHP_CLI_SERVER_WORKERS children outlive a kill of the master alone; stop the process group
SIMPLESAMLPHP_CONFIG_DIR="$SSP_DIR/config" PHP_CLI_SERVER_WORKERS=${PHP_CLI_SERVER_WORKERS:-4} \
  setsid php -S "127.0.0.1:$SSP_PORT" -t "$www" >"$SSP_DIR/server.log" 2>&1 </dev/null &
echo $! >"$SSP_DIR/server.pid"
metadata="$base/saml2/idp/metadata.php"
for _ in $(seq 1 150); do
  curl -fsS -o /dev/null "$metadata" 2>/dev/null && break
  kill -0 "$(cat "$SSP_DIR/server.pid")" 2>/dev/null || { cat "$SSP_DIR/server.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o "$SSP_DIR/idp-metadata.xml" "$metadata" || { tail "$SSP_DIR/server.log" "$SSP_DIR/log/"* >&2; exit 1; }
echo "SimpleSAMLphp IdP up in $(( ($(date +%s%N) - started) / 1000000 )) ms: metadata $metadata" \
     "SSO $base/saml2/idp/SSOService.php cert $SSP_DIR/cert/idp.crt"
