#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need (root, or sudo when available).
set -euo pipefail
# build: pkg-config, SQLite and OpenSSL headers; tests: curl, python3, headless Chromium and its
# driver (the browser test), wrk (the performance measurements); libldap-dev (the LDAP connector's C
# library), slapd + ldap-utils + openssl (the OpenLDAP test peer), samba's AD DC packages (the
# Active Directory test peer).
packages=(pkg-config libsqlite3-dev libssl-dev curl python3 chromium chromium-driver wrk
          libldap-dev slapd ldap-utils openssl
          samba samba-ad-dc samba-ad-provision samba-dsdb-modules samba-vfs-modules winbind)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi
