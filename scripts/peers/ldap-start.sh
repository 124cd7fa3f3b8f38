#!/usr/bin/env bash
# Starts a throwaway OpenLDAP slapd on loopback for the LDAP connector tests: plain LDAP with
# StartTLS on $LDAP_PORT, LDAPS on $LDAPS_PORT, a self-signed certificate for 127.0.0.1/localhost
# (the CA is the certificate itself), users and groups seeded. Prints the endpoints.
#
#   scripts/peers/ldap-start.sh            fresh directory (runtime dir wiped, reseeded)
#   scripts/peers/ldap-start.sh --restart  start again on the existing data (after ldap-stop.sh)
#
# Env: LDAP_DIR (default /tmp/idconnect-peers/ldap), LDAP_PORT (10389), LDAPS_PORT (10636).
# Needs: slapd ldap-utils openssl.
#
# Directory dc=example,dc=org:
#   cn=admin,dc=example,dc=org / adminpw          (rootdn: tests change data with it)
#   cn=readonly,dc=example,dc=org / readonlypw    (service account: search only)
#   uid=alice / alicepw (groups admins, developers, staff), uid=bob / bobpw (developers, staff),
#   uid=carol / carolpw, uid=dave / davepw (no groups), all under ou=people
#   groups under ou=groups: admins, developers (groupOfNames → memberOf), staff (posixGroup)
set -euo pipefail
LDAP_DIR=${LDAP_DIR:-/tmp/idconnect-peers/ldap}
LDAP_PORT=${LDAP_PORT:-10389}
LDAPS_PORT=${LDAPS_PORT:-10636}
BASE="dc=example,dc=org"
restart=0
[ "${1:-}" = "--restart" ] && restart=1

pidfile="$LDAP_DIR/slapd.pid"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "slapd is already running from $LDAP_DIR (pid $(cat "$pidfile"))" >&2
  exit 1
fi

if [ $restart = 0 ]; then
  rm -rf "$LDAP_DIR"
  mkdir -p "$LDAP_DIR/data" "$LDAP_DIR/tls"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,DNS:$(hostname),IP:127.0.0.1" \
    -keyout "$LDAP_DIR/tls/key.pem" -out "$LDAP_DIR/tls/ca.pem" 2>/dev/null
  chmod 600 "$LDAP_DIR/tls/key.pem"
  admin_hash=$(slappasswd -s adminpw)
  cat > "$LDAP_DIR/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile $LDAP_DIR/slapd.pid
argsfile $LDAP_DIR/slapd.args
loglevel none
TLSCertificateFile $LDAP_DIR/tls/ca.pem
TLSCertificateKeyFile $LDAP_DIR/tls/key.pem
TLSVerifyClient never
database mdb
maxsize 67108864
suffix "$BASE"
rootdn "cn=admin,$BASE"
rootpw $admin_hash
directory $LDAP_DIR/data
index objectClass,uid,cn,member,memberUid,memberOf eq
overlay memberof
memberof-group-oc groupOfNames
memberof-member-ad member
memberof-memberof-ad memberOf
memberof-refint TRUE
access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to *
  by dn.exact="cn=readonly,$BASE" read
  by users read
  by * none
CONF
  slaptest -u -f "$LDAP_DIR/slapd.conf" >/dev/null 2>&1 || slaptest -u -f "$LDAP_DIR/slapd.conf"
fi

if ldapsearch -x -H "ldap://127.0.0.1:$LDAP_PORT" -b "" -s base >/dev/null 2>&1; then
  echo "port $LDAP_PORT already answers LDAP: another slapd is running there" >&2
  exit 1
fi
slapd -f "$LDAP_DIR/slapd.conf" -h "ldap://127.0.0.1:$LDAP_PORT/ ldaps://127.0.0.1:$LDAPS_PORT/" -d 0 \
  >>"$LDAP_DIR/slapd.log" 2>&1 &
for _ in $(seq 1 100); do
  [ -f "$pidfile" ] && ldapsearch -x -H "ldap://127.0.0.1:$LDAP_PORT" -b "" -s base >/dev/null 2>&1 && break
  sleep 0.1
done
{ [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; } || { cat "$LDAP_DIR/slapd.log" >&2; exit 1; }

if [ $restart = 0 ]; then
  person() {  # uid given-name surname password uidNumber
    cat <<ENTRY
dn: uid=$1,ou=people,$BASE
objectClass: inetOrgPerson
objectClass: posixAccount
uid: $1
cn: $2 $3
givenName: $2
sn: $3
mail: $1@example.org
uidNumber: $5
gidNumber: 10000
homeDirectory: /home/$1
userPassword: $(slappasswd -s "$4")

ENTRY
  }
  {
    printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n\n' "$BASE"
    printf 'dn: ou=people,%s\nobjectClass: organizationalUnit\nou: people\n\n' "$BASE"
    printf 'dn: ou=groups,%s\nobjectClass: organizationalUnit\nou: groups\n\n' "$BASE"
    printf 'dn: cn=readonly,%s\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: readonly\nuserPassword: %s\n\n' \
      "$BASE" "$(slappasswd -s readonlypw)"
    person alice Alice Liddell alicepw 10001
    person bob Bob Builder bobpw 10002
    person carol Carol Danvers carolpw 10003
    person dave Dave Lister davepw 10004
    printf 'dn: cn=admins,ou=groups,%s\nobjectClass: groupOfNames\ncn: admins\nmember: uid=alice,ou=people,%s\n\n' "$BASE" "$BASE"
    printf 'dn: cn=developers,ou=groups,%s\nobjectClass: groupOfNames\ncn: developers\nmember: uid=alice,ou=people,%s\nmember: uid=bob,ou=people,%s\n\n' "$BASE" "$BASE" "$BASE"
    printf 'dn: cn=staff,ou=groups,%s\nobjectClass: posixGroup\ncn: staff\ngidNumber: 10000\nmemberUid: alice\nmemberUid: bob\n\n' "$BASE"
  } | ldapadd -x -H "ldap://127.0.0.1:$LDAP_PORT" -D "cn=admin,$BASE" -w adminpw >/dev/null
fi
echo "slapd: ldap://127.0.0.1:$LDAP_PORT (StartTLS) ldaps://127.0.0.1:$LDAPS_PORT CA=$LDAP_DIR/tls/ca.pem pid=$(cat "$pidfile")"
