/// The QR-code login pages (docs/qr-login.md).
extension PageTemplates {
    /// The code, a countdown, and a script that long-polls the sign-in's state and moves on
    /// when the app answered; without scripts, a link to continue after confirming in the app.
    static let qrLogin = layout + """
    <h1>{{heading}}</h1>
    {{#passwordURL}}<div id="qr-phone">
    <p>{{#t}}The app cannot scan the screen it runs on. On this phone, sign in with your password instead.{{/t}}</p>
    <p><a class="button" id="qr-password-phone" href="{{passwordURL}}">{{#t}}Sign in with your password{{/t}}</a></p>
    </div>{{/passwordURL}}
    <div id="qr" data-status="{{statusURL}}" data-finish="{{finishURL}}" data-ttl="{{ttl}}">
    <p class="muted">{{#t}}Open the app on your phone, choose “Scan to sign in” and point it at this code.{{/t}}</p>
    <p style="text-align:center"><img id="qr-code" src="{{image}}" width="{{size}}" height="{{size}}" alt="{{#t}}QR code to scan with the app{{/t}}"></p>
    <p class="muted" style="text-align:center">{{#t}}The code is valid for:{{/t}} <span id="qr-timer" data-unit="{{#t}}{0} s{{/t}}">{{ttl}} s</span></p>
    <noscript><p><a id="qr-continue" href="{{finishURL}}">{{#t}}I have confirmed in the app — continue{{/t}}</a></p></noscript>
    {{#passwordURL}}<p style="text-align:center"><a id="qr-password" href="{{passwordURL}}">{{#t}}Sign in with your password instead{{/t}}</a></p>{{/passwordURL}}
    </div>
    <div id="qr-expired" hidden>
    <p class="error" role="alert">{{#t}}The code has expired.{{/t}}</p>
    <p><a id="qr-new" href="{{restartURL}}">{{#t}}Show a new code{{/t}}</a></p>
    </div>
    <script nonce="{{nonce}}">
    (function () {
      var box = document.getElementById("qr"), ends = Date.now() + Number(box.dataset.ttl) * 1000;
      var timer = document.getElementById("qr-timer");
      setInterval(function () { timer.textContent = timer.dataset.unit.replace("{0}", Math.max(0, Math.round((ends - Date.now()) / 1000))); }, 1000);
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
    <h1>{{#t}}Sign-in refused{{/t}}</h1>
    <p class="error" role="alert" id="qr-refused">{{#t}}The sign-in was refused in the app.{{/t}}</p>
    {{#back}}<p><a id="qr-back" href="{{back}}">{{#t}}Return to the app{{/t}}</a></p>{{/back}}
    {{#post}}<form method="post" action="{{action}}">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<button type="submit" id="qr-back">{{#t}}Return to the app{{/t}}</button>
    </form>{{/post}}
    </main></body></html>
    """

    static let qrExpired = layout + """
    <h1>{{#t}}The code has expired{{/t}}</h1>
    <p class="muted">{{#t}}QR codes are valid for a short time only.{{/t}}</p>
    <p><a id="qr-new" href="{{restart}}">{{#t}}Show a new code{{/t}}</a></p>
    </main></body></html>
    """

    /// `GET /oauth/qr`: where a QR code leads when a phone's camera app opens it.
    static let qrScanHint = layout + """
    <h1>{{#t}}Scan with the app{{/t}}</h1>
    <p class="muted">{{#t}}This code signs you in on another screen. Open the app you are signed in to and
    scan the code with its “Scan to sign in” function; your phone's camera app cannot do it.{{/t}}</p>
    </main></body></html>
    """
}
