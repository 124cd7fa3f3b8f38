/// The user's account page and its set-up pages (docs/account.md). Readable without JavaScript
/// (only adding a passkey runs the broker's own script); every control is a native link, input or
/// button with a label, so the pages work from the keyboard; every change is a POST form carrying
/// `csrf_token`.
extension PageTemplates {
    static let accountStyle = """
    <style>
    main.wide{max-width:760px}
    h2{font-size:1.1rem;margin:1.8rem 0 .6rem}
    .rows{list-style:none;padding:0;margin:0}
    .row{border:1px solid #dfe2e8;border-radius:8px;padding:.7rem .9rem;margin:.5rem 0}
    .row form{display:inline-block;margin:.3rem .4rem 0 0}
    button.inline,a.button{display:inline-block;width:auto;margin-top:.4rem;padding:.45rem .9rem;font-size:.92rem;border-radius:6px}
    a.button{background:var(--primary);color:#fff;text-decoration:none}
    button.danger{background:#a4262c}
    button.inline.secondary{margin-top:.4rem}
    label.confirm{display:block;font-size:.9rem;margin:.4rem 0 0}
    .notice{background:#e7f5ea;color:#1d5c2c;padding:.7rem;border-radius:6px;font-size:.92rem}
    .tag{display:inline-block;background:#e8eefc;color:#1d3f99;border-radius:4px;padding:0 .35rem;font-size:.8rem;margin-left:.3rem}
    dl.user{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
    dl.user dt{color:#5d6577}
    dl.user dd{margin:0}
    input.name{width:auto;max-width:14rem;padding:.35rem;font-size:.92rem}
    :focus-visible{outline:3px solid var(--primary);outline-offset:2px}
    .visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
    </style>
    """

    static let account = layout + """
    <h1>{{#t}}{{heading}}: your account{{/t}}</h1>
    {{#notice}}<p class="notice" role="status" id="notice">{{notice}}</p>{{/notice}}
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    {{#hasRecoveryCodes}}
    <section aria-labelledby="codes-heading">
    <h2 id="codes-heading">{{#t}}Your new recovery codes{{/t}}</h2>
    <p class="muted">{{#t}}Each works once, in place of your second factor, if you lose it. They are shown only now.{{/t}}</p>
    <ul class="rows" id="recovery-codes">
    {{#recoveryCodes}}<li><code>{{.}}</code></li>
    {{/recoveryCodes}}</ul>
    </section>
    {{/hasRecoveryCodes}}
    <section aria-labelledby="user-heading">
    <h2 id="user-heading">{{#t}}You{{/t}}</h2>
    <dl class="user" id="user">
    <dt>{{#t}}User id{{/t}}</dt><dd id="user-id">{{userId}}</dd>
    {{#userName}}<dt>{{#t}}Name{{/t}}</dt><dd>{{userName}}</dd>{{/userName}}
    {{#userEmail}}<dt>{{#t}}Email{{/t}}</dt><dd>{{userEmail}}</dd>{{/userEmail}}
    {{#groups}}<dt>{{#t}}Groups{{/t}}</dt><dd>{{groups}}</dd>{{/groups}}
    </dl>
    </section>

    <section aria-labelledby="browsers-heading">
    <h2 id="browsers-heading">{{#t}}Signed-in browsers{{/t}}</h2>
    <ul class="rows" id="browsers">
    {{#browsers}}<li class="row" data-session="{{id}}"><strong>{{label}}</strong>{{#current}}<span class="tag">{{#t}}This browser{{/t}}</span>{{/current}}<br>
    <span class="muted">{{#address}}{{#t}}From {{address}}{{/t}} · {{/address}}{{#t}}Signed in {{{signedIn}}}{{/t}}{{#lastUsed}} · {{#t}}Last used {{{lastUsed}}}{{/t}}{{/lastUsed}}</span><br>
    <form method="post" action="{{signOutBrowserAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="session" value="{{id}}">
    <button type="submit" class="inline secondary" aria-label="{{#t}}Sign out {{label}}{{/t}}{{#current}} {{#t}}(this browser){{/t}}{{/current}}">{{#t}}Sign out{{/t}}</button></form></li>
    {{/browsers}}{{^browsers}}<li class="muted">{{#t}}No browser is signed in.{{/t}}</li>{{/browsers}}
    </ul>
    </section>

    <section aria-labelledby="apps-heading">
    <h2 id="apps-heading">{{#t}}Apps{{/t}}</h2>
    <ul class="rows" id="apps">
    {{#apps}}<li class="row" data-client="{{clientId}}"><strong>{{name}}</strong> <span class="muted">{{clientId}}</span><br>
    <span class="muted">{{#t}}Signed in {{{signedIn}}}{{/t}}{{#lastUsed}} · {{#t}}Last used {{{lastUsed}}}{{/t}}{{/lastUsed}} · {{#t}}Offline access: {{offline}}{{/t}}</span><br>
    <form method="post" action="{{removeAppAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="client" value="{{clientId}}">
    <button type="submit" class="inline secondary" aria-label="{{#t}}Remove {{name}} ({{clientId}}){{/t}}">{{#t}}Remove{{/t}}</button></form></li>
    {{/apps}}{{^apps}}<li class="muted">{{#t}}No app holds a sign-in of yours.{{/t}}</li>{{/apps}}
    </ul>
    </section>

    {{#hasConsents}}<section aria-labelledby="consents-heading">
    <h2 id="consents-heading">{{#t}}Apps you allowed{{/t}}</h2>
    <ul class="rows" id="consents">
    {{#consents}}<li class="row" data-client="{{clientId}}"><strong>{{name}}</strong> <span class="muted">{{clientId}}</span><br>
    <span class="muted">{{#t}}May: {{allowed}}{{/t}}</span><br>
    <span class="muted">{{#t}}Allowed {{{grantedAt}}}{{/t}}{{#changed}} · {{#t}}Last changed {{{updatedAt}}}{{/t}}{{/changed}}</span><br>
    <form method="post" action="{{removeConsentAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="client" value="{{clientId}}">
    <button type="submit" class="inline secondary" aria-label="{{#t}}Remove the access of {{name}}{{/t}}">{{#t}}Remove access{{/t}}</button></form></li>
    {{/consents}}</ul>
    </section>{{/hasConsents}}

    {{#hasSharedSignIns}}<section aria-labelledby="shared-heading">
    <h2 id="shared-heading">{{#t}}Apps signed in together on a device{{/t}}</h2>
    <ul class="rows" id="shared-sign-ins">
    {{#sharedSignIns}}<li class="row" data-session="{{id}}"><strong>{{apps}}</strong><br>
    <span class="muted">{{#t}}Signed in {{{signedIn}}}{{/t}}{{#lastUsed}} · {{#t}}Last used {{{lastUsed}}}{{/t}}{{/lastUsed}}</span><br>
    <form method="post" action="{{signOutSharedAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="session" value="{{id}}">
    <button type="submit" class="inline secondary" aria-label="{{#t}}Sign out {{apps}} on that device{{/t}}">{{#t}}Sign out all of them{{/t}}</button></form></li>
    {{/sharedSignIns}}
    </ul>
    </section>{{/hasSharedSignIns}}

    <section aria-labelledby="devices-heading">
    <h2 id="devices-heading">{{#t}}Devices{{/t}}</h2>
    <ul class="rows" id="devices">
    {{#devices}}<li class="row" data-device="{{clientId}}"><strong>{{deviceType}}</strong> <span class="muted">{{softwareId}}</span><br>
    <span class="muted">{{clientId}} · {{#t}}Registered {{{registered}}}{{/t}}{{#lastUsed}} · {{#t}}Last used {{{lastUsed}}}{{/t}}{{/lastUsed}}</span><br>
    <form method="post" action="{{removeDeviceAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="device" value="{{clientId}}">
    <button type="submit" class="inline danger" aria-label="{{#t}}Remove device {{deviceType}} {{clientId}}{{/t}}">{{#t}}Remove{{/t}}</button></form></li>
    {{/devices}}{{^devices}}<li class="muted">{{#t}}No device is registered to you.{{/t}}</li>{{/devices}}
    </ul>
    </section>

    {{#factors}}
    <section aria-labelledby="factors-heading">
    <h2 id="factors-heading">{{#t}}Second factors{{/t}}</h2>
    {{#changesNeedSignIn}}<p class="muted">{{#t}}Adding or removing a second factor asks you to sign in again first.{{/t}}</p>{{/changesNeedSignIn}}
    <ul class="rows" id="factors">
    <li class="row" id="authenticator"><strong>{{#t}}Authenticator app{{/t}}</strong><br>
    {{#authenticatorSince}}<span class="muted">{{#t}}Set up {{{authenticatorSince}}}{{/t}}{{#authenticatorLastUsed}} · {{#t}}Last used {{{authenticatorLastUsed}}}{{/t}}{{/authenticatorLastUsed}}</span><br>
    <form method="post" action="{{removeAuthenticatorAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    {{#lastFactor}}<label class="confirm"><input type="checkbox" id="confirm-remove-authenticator" required> {{#t}}It is my only second factor: remove it anyway{{/t}}</label>{{/lastFactor}}
    <button type="submit" class="inline danger" id="remove-authenticator" aria-label="{{#t}}Remove the authenticator app{{/t}}">{{#t}}Remove{{/t}}</button></form>{{/authenticatorSince}}
    {{^authenticatorSince}}<span class="muted">{{#t}}Not set up.{{/t}}</span>{{#offersAuthenticator}} <a class="button" id="setup-authenticator" href="{{setupAuthenticatorLink}}">{{#t}}Set up an authenticator app{{/t}}</a>{{/offersAuthenticator}}{{/authenticatorSince}}
    </li>
    <li class="row" id="passkeys"><strong>{{#t}}Passkeys{{/t}}</strong>
    <ul class="rows">
    {{#passkeys}}<li class="row" data-passkey="{{id}}"><strong>{{name}}</strong><br>
    <span class="muted">{{#t}}Added {{{added}}}{{/t}}{{#lastUsed}} · {{#t}}Last used {{{lastUsed}}}{{/t}}{{/lastUsed}}</span><br>
    <form method="post" action="{{renamePasskeyAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="passkey" value="{{id}}">
    <label class="visually-hidden" for="name-{{index}}">{{#t}}New name for {{name}}{{/t}}</label><input type="text" class="name" id="name-{{index}}" name="name" maxlength="64" value="{{name}}" required>
    <button type="submit" class="inline" aria-label="{{#t}}Rename {{name}}{{/t}}">{{#t}}Rename{{/t}}</button></form>
    <form method="post" action="{{removePasskeyAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="passkey" value="{{id}}">
    {{#lastFactor}}<label class="confirm"><input type="checkbox" id="confirm-remove-passkey-{{index}}" required> {{#t}}It is my only second factor: remove it anyway{{/t}}</label>{{/lastFactor}}
    <button type="submit" class="inline danger" aria-label="{{#t}}Remove passkey {{name}}{{/t}}">{{#t}}Remove{{/t}}</button></form></li>
    {{/passkeys}}{{^passkeys}}<li class="muted">{{#t}}No passkey.{{/t}}</li>{{/passkeys}}
    </ul>
    {{#offersPasskeys}}<a class="button" id="add-passkey" href="{{addPasskeyLink}}">{{#t}}Add a passkey{{/t}}</a>{{/offersPasskeys}}
    </li>
    <li class="row" id="recovery"><strong>{{#t}}Recovery codes{{/t}}</strong><br>
    <span class="muted" id="recovery-left">{{#t}}{{recoveryCodesLeft}} left{{/t}}</span>
    {{#hasFactor}}<form method="post" action="{{renewRecoveryCodesAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" class="inline" id="renew-recovery-codes">{{#t}}Make new recovery codes{{/t}}</button></form>{{/hasFactor}}
    </li>
    </ul>
    </section>
    {{/factors}}

    <section aria-labelledby="everywhere-heading">
    <h2 id="everywhere-heading">{{#t}}Sign out everywhere{{/t}}</h2>
    <p class="muted">{{#t}}Ends every sign-in listed above, this browser's too.{{/t}}</p>
    <form method="post" action="{{signOutEverywhereAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" class="inline secondary" id="sign-out-everywhere">{{#t}}Sign out everywhere{{/t}}</button></form>
    </section>
    </main></body></html>
    """

    static let accountAuthenticator = layout + """
    <h1>{{#t}}Set up an authenticator app{{/t}}</h1>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    <p class="muted">{{#t}}Scan this code with your authenticator app, then enter the 6-digit code it shows.{{/t}}</p>
    <p style="text-align:center"><img id="totp-qr" src="{{image}}" width="{{size}}" height="{{size}}" alt="{{#t}}QR code for your authenticator app{{/t}}"></p>
    <p class="muted">{{#t}}Cannot scan? Enter this key in the app:{{/t}} <code id="totp-secret">{{secret}}</code></p>
    <form method="post" action="{{action}}" id="otp-form" autocomplete="off">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <input type="hidden" name="setup" value="{{setup}}">
    <label for="otp">{{#t}}Code from the authenticator app{{/t}}</label>
    <input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="64" required autofocus>
    <button type="submit" id="submit">{{#t}}Confirm{{/t}}</button>
    </form>
    <p><a href="{{back}}" id="back">{{#t}}Back to your account{{/t}}</a></p>
    </main></body></html>
    """

    static let accountPasskey = layout + """
    <h1>{{#t}}Add a passkey{{/t}}</h1>
    <p class="muted">{{#t}}A passkey signs you in with your device's screen lock or a security key.{{/t}}</p>
    <label for="passkey-name">{{#t}}Name for the passkey{{/t}}</label>
    <input type="text" id="passkey-name" maxlength="64" value="{{#t}}Passkey{{/t}}" autocomplete="off">
    <button type="button" id="passkey" data-options="{{options}}" data-action="{{action}}" data-csrf="{{csrfToken}}" data-unsupported="{{#t}}This browser cannot create passkeys.{{/t}}" data-refused="{{#t}}The passkey was not added.{{/t}}" data-failed="{{#t}}The passkey was not created ({0}). Try again.{{/t}}">{{#t}}Create a passkey{{/t}}</button>
    <p class="error" role="alert" id="passkey-error" hidden></p>
    <noscript><p class="muted">{{#t}}Passkeys need JavaScript.{{/t}}</p></noscript>
    <p><a href="{{back}}" id="back">{{#t}}Back to your account{{/t}}</a></p>
    <script nonce="{{nonce}}">
    {{{script}}}
    (function () {
      var button = document.getElementById("passkey"), error = document.getElementById("passkey-error");
      if (!window.PublicKeyCredential) { button.hidden = true; error.textContent = button.dataset.unsupported; error.hidden = false; return; }
      button.addEventListener("click", function () {
        var options = JSON.parse(button.dataset.options);
        button.disabled = true;
        registerPasskey(options).then(function (credential) {
          return fetch(button.dataset.action, { method: "POST", credentials: "same-origin", cache: "no-store",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ csrf_token: button.dataset.csrf, challenge: options.challenge, credential: credential,
              name: document.getElementById("passkey-name").value }) })
            .then(function (answer) { return answer.json(); })
            .then(function (answer) {
              if (answer.redirect) { window.location.assign(answer.redirect); return; }
              button.disabled = false;
              error.textContent = answer.error || button.dataset.refused;
              error.hidden = false;
            });
        }).catch(function (failure) {
          button.disabled = false;
          error.textContent = button.dataset.failed.replace("{0}", failure && failure.name || "error");
          error.hidden = false;
        });
      });
    })();
    </script>
    </main></body></html>
    """

    static let accountSignedOut = layout + """
    <h1>{{#t}}Signed out{{/t}}</h1>
    <p class="notice" role="status" id="notice">{{message}}</p>
    <p><a href="{{again}}" id="sign-in-again">{{#t}}Sign in to your account again{{/t}}</a></p>
    </main></body></html>
    """
}
