#!/usr/bin/env bash
# Runs Tests/browser/login_test.py and qr_login_test.py: the hosted login page and QR-code login
# (decoded with zbarimg) in a real headless Chromium against
# the built `idconnect` serving a copy of the shipped console-config, and way_forward_test.py on the
# same broker (the QR page on a phone offers the password form, a page not found, a sign-out
# problem; issue 61); then account_test.py, the
# user's account page (docs/account.md), which starts its own broker on such a copy (with MFA and
# app instance registration; `account_test.py --screenshot docs/images/account-page.png` refreshes
# the documentation's screenshot); then mfa_test.py, the second factor (docs/mfa.md) with
# `mfa: required` on its own broker: enrolment from the QR code, codes, replay, recovery codes, a
# passkey with Chromium's virtual authenticator, and API mode; then cors_test.py, a single-page app
# on another loopback origin doing the code flow with PKCE, refresh, userinfo and revocation
# through fetch, and an unlisted origin blocked (docs/protocol.md, "Browser apps (CORS)"); then
# response_mode_test.py, form_post and fragment answers to a receiver on another port
# (docs/protocol.md, "Response modes"); then consent_test.py, the consent screen and permission
# requests (docs/consent.md; `--screenshots docs/images` refreshes its screenshots); then
# brand_test.py, the operator's branding and the pages' contrast (docs/configuration.md, "Branding"); then
# language_test.py, the pages in each shipped language (docs/languages.md); then
# mod_auth_openidc_test.py, Apache httpd with mod_auth_openidc as a relying party signed out by the
# broker's back-channel logout. Most of them run Tests/browser/accessibility.py's WCAG 2.2 AA audit
# (contrast, labels, accessible names, a keyboard walk) on each page they visit; its self-test runs first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/idconnect"
venv=.venv-test
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import selenium' 2>/dev/null || "$venv/bin/pip" install -q 'selenium>=4.20,<5'
work=$(mktemp -d)
port=$(( 20000 + RANDOM % 2000 ))
base="http://127.0.0.1:$port"
cp -r console-config "$work/config"
"$bin" serve --config "$work/config" --port "$port" --issuer "$base" --storage "sqlite:$work/db.sqlite" >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
"$venv/bin/python" Tests/browser/accessibility.py
"$venv/bin/python" Tests/browser/login_test.py "$base"
"$venv/bin/python" Tests/browser/qr_login_test.py "$base"
"$venv/bin/python" Tests/browser/way_forward_test.py "$base"
"$venv/bin/python" Tests/browser/account_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/mfa_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/cors_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/response_mode_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/consent_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/brand_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/language_test.py --bin "$bin"
"$venv/bin/python" Tests/browser/mod_auth_openidc_test.py --bin "$bin"
