/// The QR-code login pages (docs/qr-login.md).
extension PageTemplates {
    /// The code, a countdown, and a script that long-polls the sign-in's state and moves on
    /// when the app answered; without scripts, a link to continue after confirming in the app.
    static let qrLogin = layout + """
    <h1>{{heading}}</h1>
    {{#passwordURL}}<div id="qr-phone">
    <p>The app cannot scan the screen it runs on. On this phone, sign in with your password instead.</p>
    <p><a class="button" id="qr-password-phone" href="{{passwordURL}}">Sign in with your password</a></p>
    </div>{{/passwordURL}}
    <div id="qr" data-status="{{statusURL}}" data-finish="{{finishURL}}" data-ttl="{{ttl}}">
    <p class="muted">Open the app on your phone, choose "Scan to sign in" and point it at this code.</p>
    <p style="text-align:center"><img id="qr-code" src="{{image}}" width="{{size}}" height="{{size}}" alt="QR code to scan with the app"></p>
    <p class="muted" style="text-align:center">The code is valid for <span id="qr-timer">{{ttl}} s</span>.</p>
    <noscript><p><a id="qr-continue" href="{{finishURL}}">I have confirmed in the app — continue</a></p></noscript>
    {{#passwordURL}}<p style="text-align:center"><a id="qr-password" href="{{passwordURL}}">Sign in with your password instead</a></p>{{/passwordURL}}
    </div>
    <div id="qr-expired" hidden>
    <p class="error" role="alert">The code has expired.</p>
    <p><a id="qr-new" href="{{restartURL}}">Show a new code</a></p>
    </div>
    <script nonce="{{nonce}}">
    (function () {
      var box = document.getElementById("qr"), ends = Date.now() + Number(box.dataset.ttl) * 1000;
      var timer = document.getElementById("qr-timer");
      setInterval(function () { timer.textContent = Math.max(0, Math.round((ends - Date.now()) / 1000)) + " s"; }, 1000);
      function poll() {
        fetch(box.dataset.status, { credentials: "same-origin", cache: "no-store" })
          .then(function (answer) { return answer.json(); })
          .then(function (answer) {
            if (answer.state === "pending") { poll(); return; }
            if (answer.state === "expired") { box.hidden = true; document.getElementById("qr-expired").hidden = false; return; }
            window.location.assign(box.dataset.finish);
          })
          .catch(function () { setTimeout(poll, 3000); });
      }
      poll();
    })();
    </script>
    </main></body></html>
    """

    static let qrRefused = layout + """
    <h1>Sign-in refused</h1>
    <p class="error" role="alert" id="qr-refused">The sign-in was refused in the app.</p>
    {{#back}}<p><a id="qr-back" href="{{back}}">Return to the app</a></p>{{/back}}
    {{#post}}<form method="post" action="{{action}}">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<button type="submit" id="qr-back">Return to the app</button>
    </form>{{/post}}
    </main></body></html>
    """

    static let qrExpired = layout + """
    <h1>The code has expired</h1>
    <p class="muted">QR codes are valid for a short time only.</p>
    <p><a id="qr-new" href="{{restart}}">Show a new code</a></p>
    </main></body></html>
    """

    /// `GET /oauth/qr`: where a QR code leads when a phone's camera app opens it.
    static let qrScanHint = layout + """
    <h1>Scan with the app</h1>
    <p class="muted">This code signs you in on another screen. Open the app you are signed in to and
    scan the code with its "Scan to sign in" function; your phone's camera app cannot do it.</p>
    </main></body></html>
    """
}
