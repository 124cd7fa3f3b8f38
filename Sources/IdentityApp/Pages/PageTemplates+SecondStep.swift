/// The second-step page of a browser sign-in (docs/mfa.md): an AuthLink challenge, a second
/// factor, enrolling one, and the recovery codes shown once.
extension PageTemplates {
    static let secondStep = layout + """
    <h1>{{heading}}</h1>
    {{#account}}<p class="muted" id="signed-in-as">{{#t}}Signing in as <strong>{{account}}</strong>.{{/t}}{{^restartAction}} {{#t}}Not you? Close this page and start again from the app.{{/t}}{{/restartAction}}</p>
    {{#restartAction}}<form method="post" action="{{restartAction}}" class="restart"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" class="link" id="not-you">{{#t}}Not you? Sign in as someone else{{/t}}</button></form>{{/restartAction}}{{/account}}
    <p class="muted" id="mfa-message">{{message}}</p>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    {{#totpSetup}}
    <h2 style="font-size:1.05rem">{{#t}}Authenticator app{{/t}}</h2>
    <p class="muted">{{#t}}Scan this code with your authenticator app, then enter the 6-digit code it shows.{{/t}}</p>
    <p style="text-align:center"><img id="totp-qr" src="{{image}}" width="{{size}}" height="{{size}}" alt="{{#t}}QR code for your authenticator app{{/t}}"></p>
    <p class="muted">{{#t}}Cannot scan? Enter this key in the app:{{/t}} <code id="totp-secret">{{secret}}</code></p>
    <p class="muted">{{#t}}On the phone with the authenticator app?{{/t}} <a id="totp-open" href="{{uri}}">{{#t}}Open it in the app{{/t}}</a></p>
    {{/totpSetup}}
    {{#offersCode}}
    <form method="post" action="{{action}}" id="otp-form" autocomplete="off">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <label for="otp">{{codeLabel}}</label>
    <input type="text" id="otp" name="otp" inputmode="{{inputMode}}" autocomplete="{{autocomplete}}" autocapitalize="none" spellcheck="false" maxlength="64" required autofocus{{#error}} aria-invalid="true" aria-describedby="error"{{/error}}>
    <button type="submit" id="submit">{{submitLabel}}</button>
    </form>
    {{/offersCode}}
    {{#passkey}}
    <button type="button" id="passkey" class="{{passkeyClass}}" data-options="{{options}}" data-action="{{action}}" data-csrf="{{csrfToken}}" data-create="{{creates}}" data-page="{{page}}" data-failed="{{#t}}The passkey was not used ({0}). Try again.{{/t}}">{{label}}</button>
    <p class="error" role="alert" id="passkey-error" hidden></p>
    <noscript><p class="muted">{{#t}}Passkeys need JavaScript.{{/t}}</p></noscript>
    <script nonce="{{nonce}}">
    {{{script}}}
    (function () {
      var button = document.getElementById("passkey"), error = document.getElementById("passkey-error");
      if (!window.PublicKeyCredential) { button.hidden = true; return; }
      button.addEventListener("click", function () {
        var options = JSON.parse(button.dataset.options), creates = button.dataset.create === "true";
        button.disabled = true;
        (creates ? registerPasskey(options) : signInWithPasskey(options)).then(function (credential) {
          return fetch(button.dataset.action, { method: "POST", credentials: "same-origin", cache: "no-store",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ csrf_token: button.dataset.csrf, challenge: options.challenge, credential: credential }) })
            .then(function (answer) { return answer.json(); })
            .then(function (answer) {
              if (!answer.post) { window.location.assign(answer.redirect || button.dataset.page); return; }
              var form = document.createElement("form");
              form.method = "post";
              form.action = answer.post.action;
              answer.post.fields.forEach(function (field) {
                var input = document.createElement("input");
                input.type = "hidden";
                input.name = field.name;
                input.value = field.value;
                form.appendChild(input);
              });
              document.body.appendChild(form);
              form.submit();
            });
        }).catch(function (failure) {
          button.disabled = false;
          error.textContent = button.dataset.failed.replace("{0}", failure && failure.name || "error");
          error.hidden = false;
        });
      });
    })();
    </script>
    {{/passkey}}
    {{#hasRecoveryCodes}}
    <h2 style="font-size:1.05rem">{{#t}}Recovery codes{{/t}}</h2>
    <p class="muted">{{#t}}Keep these codes somewhere safe. Each works once, in place of a code from your authenticator app or
    your passkey, if you lose it. They are shown only now.{{/t}}</p>
    <ul class="accounts" id="recovery-codes">
    {{#recoveryCodes}}<li><code>{{.}}</code></li>
    {{/recoveryCodes}}</ul>
    <p><a id="recovery-download" href="{{recoveryDownload}}" download="recovery-codes.txt">{{#t}}Download the codes{{/t}}</a>
    <button type="button" id="recovery-copy" class="secondary" data-copied="{{#t}}Copied.{{/t}}" data-refused="{{#t}}Copying is not allowed here; use Download.{{/t}}" hidden>{{#t}}Copy the codes{{/t}}</button>
    <span id="recovery-copied" role="status" class="muted"></span></p>
    <script nonce="{{nonce}}">
    (function () {
      var copy = document.getElementById("recovery-copy"), said = document.getElementById("recovery-copied");
      if (!navigator.clipboard) { return; }
      copy.hidden = false;
      copy.addEventListener("click", function () {
        var codes = Array.prototype.map.call(document.querySelectorAll("#recovery-codes code"), function (c) { return c.textContent; });
        navigator.clipboard.writeText(codes.join("\n") + "\n").then(function () { said.textContent = copy.dataset.copied; },
          function () { said.textContent = copy.dataset.refused; });
      });
    })();
    </script>
    {{/hasRecoveryCodes}}
    {{#continueAction}}
    <form method="post" action="{{continueAction}}" id="continue-form">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" id="continue">{{#t}}Continue{{/t}}</button>
    </form>
    {{/continueAction}}
    </main></body></html>
    """
}
