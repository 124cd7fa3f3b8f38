#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need (root, or sudo when available).
set -euo pipefail
# `--build-only`: just what compiling needs (the Dockerfile's build stage), no test peers.
build_only=false
[ "${1:-}" = "--build-only" ] && build_only=true
# build: pkg-config, SQLite and OpenSSL headers; tests: curl, python3, headless Chromium and its
# driver (the browser test), wrk (the performance measurements), postgresql (PostgreSQL 15: the
# PostgreSQL store suite and the multi-instance test; also brings psql); libldap-dev (the LDAP connector's C
# library), slapd + ldap-utils + openssl (the OpenLDAP test peer), samba's AD DC packages (the
# Active Directory test peer); libxmlsec1-dev + libxml2-dev (the SAML connector's XML signature and
# encryption libraries), zlib1g-dev (inflating SAML HTTP-Redirect messages); libqrencode-dev (QR-code login's symbols), libmaxminddb-dev (server.geoip) and, to check QR symbols, zbar-tools
# (zbarimg decodes screenshots), librsvg2-bin (rsvg-convert renders the SVG), pngcheck and python3-png;
# python3-cryptography (the benchmark signs DPoP proofs, scripts/bench/dpop.py).
packages=(pkg-config libsqlite3-dev libssl-dev libxmlsec1-dev libxml2-dev zlib1g-dev libqrencode-dev libmaxminddb-dev curl python3 chromium chromium-driver wrk postgresql
          libldap-dev slapd ldap-utils openssl zbar-tools librsvg2-bin pngcheck python3-png python3-cryptography
          samba samba-ad-dc samba-ad-provision samba-dsdb-modules samba-vfs-modules winbind)
# test peers of the oauth2 / openid-connect connectors: a venv for django-oauth-toolkit, and the
# LemonLDAP::NG portal served by plackup with the Perl modules its OIDC provider loads.
packages+=(python3-venv liblemonldap-ng-portal-perl libplack-perl libgd-securityimage-perl libimage-magick-perl
  libcrypt-openssl-rsa-perl libcrypt-openssl-x509-perl libcrypt-openssl-bignum-perl libstring-random-perl
  libio-string-perl libjson-perl libcrypt-urandom-perl libconvert-base32-perl libdigest-hmac-perl libmime-tools-perl
  libemail-sender-perl libunicode-string-perl libhttp-parser-xs-perl libcookie-baker-xs-perl
  libapache-session-browseable-perl libio-socket-timeout-perl)
# SAML IdP test peers of the saml connector: SimpleSAMLphp 1.19 served by PHP's built-in server
# (lighttpd only satisfies its web-server dependency, never started), pysaml2 in the venv below, and
# xmlsec1 (pysaml2 signs and encrypts with it; the check script verifies with it).
packages+=(simplesamlphp php8.2-cli php8.2-cgi php8.2-xml php8.2-mbstring php8.2-curl php8.2-intl lighttpd xmlsec1)
# The benchmark's peer OAuth server (scripts/bench.py, side-by-side rows): Glewlwyd 2.7, started
# on its own SQLite file by scripts/bench/glewlwyd-start.sh (the package's system service is not used).
packages+=(glewlwyd)
# A relying party nobody here wrote for the back-channel logout browser test: Apache httpd with
# mod_auth_openidc, started on its own config by Tests/browser/mod_auth_openidc_test.py.
packages+=(apache2 libapache2-mod-auth-openidc)
if $build_only; then
  packages=(pkg-config libsqlite3-dev libssl-dev libldap-dev libxmlsec1-dev libxml2-dev zlib1g-dev libqrencode-dev libmaxminddb-dev)
fi
missing=()
for package in "${packages[@]}"; do
  # Installed means "install ok installed": `dpkg -s` also succeeds for a package that was removed
  # but left its configuration files behind (status "deinstall ok config-files").
  [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "install-deps: these Debian packages are missing and this user cannot install them (not root, no sudo):" >&2
      echo "  apt-get install ${missing[*]}" >&2
      exit 1
    fi
    sudo_cmd="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi

$build_only && exit 0

# Python test peers (pinned in scripts/peers/requirements.txt) in the project's own venv.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-peers"
requirements="$(dirname "$0")/peers/requirements.txt"
if ! cmp -s "$requirements" "$venv/.installed" 2>/dev/null; then
  echo "installing Python test peers into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/.installed"
fi
