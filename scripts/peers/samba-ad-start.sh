#!/usr/bin/env bash
# Starts a throwaway Samba Active Directory domain controller on loopback for the
# active-directory connector tests. Root only: AD's ports are fixed (LDAP 389, LDAPS 636, KDC 88).
# The domain is provisioned into $SAMBA_DIR (wiped), seeded offline, then `samba` runs in the
# foreground in the background of this script. Prints the endpoints.
#
# Env: SAMBA_DIR (default /tmp/idconnect-peers/samba).
# Needs: samba samba-ad-dc samba-ad-provision samba-dsdb-modules samba-vfs-modules winbind ldap-utils openssl.
#
# Domain CORP.EXAMPLE.ORG (NetBIOS CORP), base DC=corp,DC=example,DC=org:
#   svc-ldap / svcpw    service account for searches and re-checks
#   alice / alicepw     groups developers, admins; developers is a member of engineering (nested)
#   bob / bobpw         groups developers
#   carol / carolpw     disabled account (userAccountControl bit 2)
#   dave / davepw       must change the password at next logon (AD data 773)
#   erin / erinpw       locked out (3 wrong binds, threshold 3 → AD data 775)
#   frank / frankpw     account expired (AD data 701)
# Simple binds are allowed over plain LDAP ("ldap server require strong auth = no").
set -euo pipefail
SAMBA_DIR=${SAMBA_DIR:-/tmp/idconnect-peers/samba}
REALM=CORP.EXAMPLE.ORG
BASE="DC=corp,DC=example,DC=org"

if [ -f "$SAMBA_DIR/samba.pid" ] && kill -0 "$(cat "$SAMBA_DIR/samba.pid")" 2>/dev/null; then
  echo "samba is already running from $SAMBA_DIR (pid $(cat "$SAMBA_DIR/samba.pid"))" >&2
  exit 1
fi
# A system slapd started by the package would hold port 389.
if command -v service >/dev/null && service slapd status >/dev/null 2>&1; then service slapd stop >/dev/null || true; fi

rm -rf "$SAMBA_DIR"
mkdir -p "$SAMBA_DIR/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=dc1.corp.example.org" \
  -addext "subjectAltName=DNS:dc1.corp.example.org,DNS:localhost,IP:127.0.0.1" \
  -keyout "$SAMBA_DIR/tls/key.pem" -out "$SAMBA_DIR/tls/cert.pem" 2>/dev/null
chmod 600 "$SAMBA_DIR/tls/key.pem"

# No DNS backend and no forwarder: the DC talks to nobody but loopback clients.
samba-tool domain provision --targetdir="$SAMBA_DIR" --realm=$REALM --domain=CORP --server-role=dc \
  --dns-backend=NONE --adminpass='Adm1n!Passw0rd' --host-name=dc1 --host-ip=127.0.0.1 \
  --option="interfaces=lo" --option="bind interfaces only=yes" --option="server services=ldap cldap kdc" \
  --option="dns forwarder=" --option="log file=$SAMBA_DIR/log.%m" --option="tls enabled=yes" \
  --option="tls keyfile=$SAMBA_DIR/tls/key.pem" --option="tls certfile=$SAMBA_DIR/tls/cert.pem" --option="tls cafile=" \
  >"$SAMBA_DIR/provision.log" 2>&1 || { tail -20 "$SAMBA_DIR/provision.log" >&2; exit 1; }
CONF="$SAMBA_DIR/etc/smb.conf"
sed -i '/^\[global\]/a\\tldap server require strong auth = no' "$CONF"

tool() { samba-tool "$@" -s "$CONF" >/dev/null; }
tool domain passwordsettings set --complexity=off --min-pwd-length=1 --history-length=0 --min-pwd-age=0 \
  --max-pwd-age=0 --account-lockout-threshold=3 --account-lockout-duration=30 --reset-account-lockout-after=30
for user in alice:Alice:Liddell bob:Bob:Builder carol:Carol:Danvers dave:Dave:Lister erin:Erin:Hannon frank:Frank:Poole; do
  IFS=: read -r name given surname <<<"$user"
  tool user create "$name" "${name}pw" --given-name="$given" --surname="$surname" --mail-address="$name@corp.example.org"
done
tool user create svc-ldap svcpw
tool group add developers
tool group addmembers developers alice,bob
tool group add admins
tool group addmembers admins alice
tool group add engineering
tool group addmembers engineering developers
tool user disable carol
tool user setpassword dave --newpassword=davepw --must-change-at-next-login
tool user setexpiry frank --days=0

samba -i -M single -s "$CONF" >"$SAMBA_DIR/samba.log" 2>&1 &
echo $! >"$SAMBA_DIR/samba.pid"
for _ in $(seq 1 300); do
  ldapsearch -x -H ldap://127.0.0.1:389 -b "" -s base defaultNamingContext >/dev/null 2>&1 && break
  kill -0 "$(cat "$SAMBA_DIR/samba.pid")" 2>/dev/null || { tail -20 "$SAMBA_DIR/samba.log" >&2; exit 1; }
  sleep 0.1
done
# Lock erin out with wrong passwords (the threshold is 3).
for _ in 1 2 3 4; do ldapwhoami -x -H ldap://127.0.0.1:389 -D "erin@corp.example.org" -w wrong >/dev/null 2>&1 || true; done
echo "samba AD DC: ldap://127.0.0.1:389 ldaps://127.0.0.1:636 base $BASE CA=$SAMBA_DIR/tls/cert.pem pid=$(cat "$SAMBA_DIR/samba.pid")"
