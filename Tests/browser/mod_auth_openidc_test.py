"""A relying party nobody here wrote — Apache httpd with mod_auth_openidc — is signed out by the
broker's back-channel logout (OpenID Connect Back-Channel Logout 1.0; docs/protocol.md,
"Back-channel logout to relying parties").

Starts its own `idconnect serve` on a copy of the shipped console-config whose demo auth service
lists mod_auth_openidc's redirect URI and names it, with `?logout=backchannel`, as its
`backchannelLogoutUri`; and an Apache of its own (config, logs and pid in a temporary directory,
127.0.0.1 only) protecting /protected/ with `AuthType openid-connect`. In a real headless Chromium:
/protected/ goes to the broker's login page, alice signs in, Apache serves the page, and a reload
still does (Apache's own session). Then `idconnect sessions revoke` ends alice's sign-in at the
broker — server side, nothing passes through the browser or Apache — and the broker's logout
token reaches Apache's redirect URI, which answers 200 (its access log says so). The same browser,
its Apache session cookie still set, is then sent back to the broker to sign in again.

Usage: mod_auth_openidc_test.py --bin PATH_TO_IDCONNECT
"""
import argparse
import os
import secrets
import shutil
import subprocess
import tempfile
import time

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

import browser_support
from account_support import add_redirect_uri, free_port, serve
from browser_support import check, chromium, fail, sign_in

browser_support.test_name = "mod_auth_openidc back-channel logout test"

MODULES = "/usr/lib/apache2/modules"
APACHE = """ServerRoot {work}
PidFile {work}/httpd.pid
ErrorLog {work}/error.log
LogLevel warn auth_openidc:info
LogFormat "%r %>s" brief
CustomLog {work}/access.log brief
Listen 127.0.0.1:{port}
ServerName 127.0.0.1
User nobody
Group nogroup
LoadModule mpm_event_module {modules}/mod_mpm_event.so
LoadModule authn_core_module {modules}/mod_authn_core.so
LoadModule authz_core_module {modules}/mod_authz_core.so
LoadModule authz_user_module {modules}/mod_authz_user.so
LoadModule auth_openidc_module {modules}/mod_auth_openidc.so
DocumentRoot {work}/htdocs
<Directory />
    AllowOverride None
</Directory>
OIDCProviderMetadataURL {broker}/.well-known/openid-configuration
OIDCClientID kid_demo
OIDCClientSecret {secret}
OIDCRedirectURI http://127.0.0.1:{port}/protected/redirect_uri
OIDCCryptoPassphrase {passphrase}
OIDCScope "openid email"
OIDCPKCEMethod S256
OIDCProviderTokenEndpointAuth client_secret_basic
<Location /protected/>
    AuthType openid-connect
    Require valid-user
</Location>
"""


def start_apache(work, port, broker, secret):
    """Writes the config and a protected page, then starts Apache in the foreground (as root its
    workers run as nobody, so everything they read is world-readable)."""
    os.makedirs(os.path.join(work, "htdocs", "protected"))
    with open(os.path.join(work, "htdocs", "protected", "index.html"), "w") as page:
        page.write("<!doctype html><title>Protected</title><p id=protected>signed in at Apache</p>\n")
    os.chmod(work, 0o755)
    conf = os.path.join(work, "httpd.conf")
    with open(conf, "w") as handle:
        handle.write(APACHE.format(work=work, port=port, modules=MODULES, broker=broker, secret=secret,
                                   passphrase=secrets.token_hex(16)))
    output = open(os.path.join(work, "apache.out"), "w")
    process = subprocess.Popen(["apache2", "-f", conf, "-DFOREGROUND"], stdout=output, stderr=subprocess.STDOUT)
    for _ in range(100):
        if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"]).returncode == 0:
            return process
        time.sleep(0.1)
    fail("Apache did not start: " + tail(os.path.join(work, "apache.out")) + tail(os.path.join(work, "error.log")))


def tail(path, lines=30):
    try:
        return "".join(open(path).readlines()[-lines:])
    except OSError:
        return f"({path} unreadable)"


def wait_for(driver, condition, what, logs):
    """Waits up to 20 s for `condition`; fails naming `what`, the page and the logs' tails."""
    try:
        WebDriverWait(driver, 20).until(condition)
    except TimeoutException:
        fail(f"{what}: at {driver.current_url}\n{driver.page_source[:600]}\n" + "".join(tail(log) for log in logs))


def shows_protected_page(driver):
    return driver.current_url.startswith("http://127.0.0.1") and "signed in at Apache" in driver.page_source


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="idc-openidc-")
    # Apache's own directory, apart from the broker's (its workers run as nobody and read it).
    apache_dir = tempfile.mkdtemp(prefix="idc-apache-")
    apache_port = free_port()
    redirect_uri = f"http://127.0.0.1:{apache_port}/protected/redirect_uri"
    more = f"        backchannelLogoutUri: {redirect_uri}?logout=backchannel\n"
    process, base = serve(arguments.bin, work, mfa=None, adjust=lambda config: add_redirect_uri(config, redirect_uri, more=more))
    config = os.path.join(work, "config")
    secret = open(os.path.join(config, "secrets", "demo-app-secret")).read().strip()
    apache = None
    driver = chromium()
    try:
        apache = start_apache(apache_dir, apache_port, base, secret)
        logs = [os.path.join(apache_dir, "error.log"), os.path.join(work, "serve.log")]
        driver.get(f"http://127.0.0.1:{apache_port}/protected/index.html")
        wait_for(driver, lambda d: d.current_url.startswith(base), "Apache did not send the browser to the broker", logs)
        sign_in(driver, WebDriverWait(driver, 20))
        wait_for(driver, shows_protected_page, "signed in, the browser did not get Apache's page", logs)
        driver.get(f"http://127.0.0.1:{apache_port}/protected/index.html")
        check(shows_protected_page(driver), "before the logout a reload is served from Apache's own session")
        print("  mod_auth_openidc signed alice in through the broker; a reload is served from its session")

        started = time.time()
        revoke = subprocess.run([arguments.bin, "sessions", "revoke", "--user", "alice", "--config", config,
                                 "--storage", f"sqlite:{work}/db.sqlite"], capture_output=True, text=True, timeout=60)
        check(revoke.returncode == 0, f"idconnect sessions revoke: {revoke.stderr[-300:]}")
        access_log = os.path.join(apache_dir, "access.log")
        delivered = None
        while delivered is None and time.time() - started < 15:
            lines = [line for line in open(access_log).read().splitlines() if "logout=backchannel" in line]
            delivered = lines[0] if lines else None
            time.sleep(0.1)
        check(delivered is not None, "no back-channel logout reached Apache within 15 s; broker log:\n"
              + tail(os.path.join(work, "serve.log")))
        check(delivered.startswith("POST ") and delivered.endswith(" 200"),
              f"Apache did not take the logout token: '{delivered}'\n{tail(os.path.join(apache_dir, 'error.log'))}")
        print(f"  sessions revoke → mod_auth_openidc took the logout token ({delivered}) "
              f"{1000 * (time.time() - started):.0f} ms later")

        driver.get(f"http://127.0.0.1:{apache_port}/protected/index.html")
        wait_for(driver, lambda d: d.current_url.startswith(base) or shows_protected_page(d), "no page after the logout", logs)
        check(driver.current_url.startswith(base),
              "after the back-channel logout Apache still served the page from its session\n"
              + tail(os.path.join(apache_dir, "error.log")))
        print("  the same browser, Apache's cookie still set, is sent to the broker to sign in again")
    finally:
        driver.quit()
        if apache:
            apache.terminate()
            try:
                apache.wait(10)
            except subprocess.TimeoutExpired:
                apache.kill()
        process.terminate()
        process.wait()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(apache_dir, ignore_errors=True)
    print("mod_auth_openidc back-channel logout test: OK")


if __name__ == "__main__":
    main()
