"""A browser single-page app on another origin uses the broker through `fetch` (CORS, issue 55 point 2;
docs/protocol.md, "Browser apps (CORS)").

Starts its own `idconnect serve` on a copy of the shipped console-config whose demo auth service
lists the SPA's callback among its redirect URIs and `webOrigins: [ "+" ]` (the origins of those
URIs), and serves a small SPA (plain JavaScript: `fetch`, WebCrypto for PKCE, no CDN) from a Python
http.server on another loopback port. In a real headless Chromium the SPA reads discovery, sends
the browser to the broker's login page (alice / wonderland), and back on its own page exchanges
the code with PKCE, refreshes (a JSON body, so Chromium sends a preflight first), reads userinfo
with a Bearer token (preflighted) and revokes the refresh token — every answer read by the page.
The same page served from a third port, an origin the broker does not list, can read discovery and
the JWKS (any origin) but its `fetch` of the token endpoint and of userinfo fails with TypeError.

Usage: cors_test.py --bin PATH_TO_IDCONNECT
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import tempfile
import threading

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from account_support import add_redirect_uri, free_port, serve
from browser_support import check, chromium, sign_in

browser_support.test_name = "CORS browser test"

# The SPA. On its first load it reads discovery, makes a PKCE pair with WebCrypto and goes to the
# authorization endpoint; back with a code it does the rest and shows every answer in #result.
APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>SPA</title></head>
<body><pre id="result"></pre><script>
const broker = new URLSearchParams(location.hash.slice(1)).get("broker") || sessionStorage.getItem("broker");
const redirect = location.origin + location.pathname;
const b64url = bytes => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
async function answer(response) { return {status: response.status, body: await response.json()}; }
async function start() {
  sessionStorage.setItem("broker", broker);
  const discovery = await (await fetch(broker + "/.well-known/openid-configuration")).json();
  sessionStorage.setItem("discovery", JSON.stringify(discovery));
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem("verifier", verifier);
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  location.href = discovery.authorization_endpoint + "?" + new URLSearchParams({client_id: "kid_demo", redirect_uri: redirect,
    response_type: "code", scope: "openid email profile", state: "spa-state", code_challenge: challenge, code_challenge_method: "S256"});
}
async function finish(code) {
  const discovery = JSON.parse(sessionStorage.getItem("discovery"));
  const result = {};
  const exchanged = await fetch(discovery.token_endpoint, {method: "POST", body: new URLSearchParams({grant_type: "authorization_code",
    code, redirect_uri: redirect, client_id: "kid_demo", code_verifier: sessionStorage.getItem("verifier")})});
  result.exchange = await answer(exchanged);
  const refreshed = await fetch(discovery.token_endpoint, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({grant_type: "refresh_token", refresh_token: result.exchange.body.refresh_token, client_id: "kid_demo"})});
  result.refresh = await answer(refreshed);
  result.userinfo = await answer(await fetch(discovery.userinfo_endpoint,
    {headers: {Authorization: "Bearer " + result.refresh.body.access_token}}));
  result.revoke = await answer(await fetch(discovery.revocation_endpoint, {method: "POST",
    body: new URLSearchParams({token: result.refresh.body.refresh_token, client_id: "kid_demo"})}));
  document.getElementById("result").textContent = JSON.stringify(result);
}
const code = new URLSearchParams(location.search).get("code");
(code ? finish(code) : start()).catch(error => { document.getElementById("result").textContent = JSON.stringify({error: String(error)}); });
</script></body></html>
"""

# Run in a page of the unlisted origin: what each fetch gives (a status, or the error's name).
PROBE = """
const [broker, done] = [arguments[0], arguments[arguments.length - 1]];
async function attempt(url, init) {
  try { const response = await fetch(url, init); return response.status; } catch (error) { return error.name; }
}
(async () => done({
  discovery: await attempt(broker + "/.well-known/openid-configuration"),
  jwks: await attempt(broker + "/.well-known/jwks.json"),
  token: await attempt(broker + "/oauth/token", {method: "POST",
    body: new URLSearchParams({grant_type: "authorization_code", code: "x", client_id: "kid_demo"})}),
  v3token: await attempt(broker + "/v3/oauth/token", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}),
  userinfo: await attempt(broker + "/oauth/userinfo", {headers: {Authorization: "Bearer x"}}),
}))();
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def static_site(directory):
    """Serves `directory` on a free loopback port in a thread; returns (server, origin)."""
    port = free_port()
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{port}"


def configure(config, spa_origin):
    """The demo auth service also redirects to the SPA and lists the origins of its redirect URIs."""
    add_redirect_uri(config, f"{spa_origin}/app.html", more="        webOrigins: [ \"+\" ]\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-cors-")
    site = os.path.join(work, "site")
    os.makedirs(site)
    with open(os.path.join(site, "app.html"), "w") as file:
        file.write(APP)
    spa, spa_origin = static_site(site)
    stranger, stranger_origin = static_site(site)
    process, base = serve(arguments.bin, work, mfa=None, adjust=lambda config: configure(config, spa_origin))
    driver = None
    try:
        driver = chromium()
        wait = WebDriverWait(driver, 20)
        driver.get(f"{spa_origin}/app.html#broker={base}")
        # The SPA reads discovery, then goes to the login page; a failed fetch shows in #result instead.
        wait.until(lambda d: d.find_elements(By.ID, "username") or d.find_elements(By.CSS_SELECTOR, "#result:not(:empty)"))
        stuck = driver.find_elements(By.ID, "result")
        check(not stuck, f"the SPA could not start: {stuck[0].text if stuck else ''}")
        sign_in(driver, wait)
        wait.until(lambda d: d.current_url.startswith(f"{spa_origin}/app.html?") and d.find_element(By.ID, "result").text)
        result = json.loads(driver.find_element(By.ID, "result").text)
        check("error" not in result, f"the SPA failed: {result}")
        check(result["exchange"]["status"] == 200 and "refresh_token" in result["exchange"]["body"], f"code exchange: {result['exchange']}")
        check(result["refresh"]["status"] == 200 and result["refresh"]["body"]["access_token"] != result["exchange"]["body"]["access_token"],
              f"refresh: {result['refresh']}")
        info = result["userinfo"]
        check(info["status"] == 200 and info["body"].get("email") == "alice@example.org" and info["body"].get("name") == "Alice Liddell"
              and isinstance(info["body"].get("email_verified"), bool) and info["body"].get("sub"), f"userinfo: {info}")
        check(result["revoke"]["status"] == 200, f"revocation: {result['revoke']}")

        driver.get(f"{stranger_origin}/app.html?code=none")
        probed = driver.execute_async_script(PROBE, base)
        check(probed["discovery"] == 200 and probed["jwks"] == 200, f"discovery and JWKS are for any origin: {probed}")
        for name in ("token", "v3token", "userinfo"):
            check(probed[name] == "TypeError", f"an unlisted origin read the {name} answer: {probed}")
        print(f"CORS browser test: OK (SPA on {spa_origin}: code with PKCE, refresh, userinfo, revocation; "
              f"{stranger_origin} blocked)")
    finally:
        if driver:
            driver.quit()
        process.terminate()
        process.wait(timeout=20)
        spa.shutdown()
        stranger.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
