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
    <h1>{{heading}}: your account</h1>
    {{#notice}}<p class="notice" role="status" id="notice">{{notice}}</p>{{/notice}}
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    {{#hasRecoveryCodes}}
    <section aria-labelledby="codes-heading">
    <h2 id="codes-heading">Your new recovery codes</h2>
    <p class="muted">Each works once, in place of your second factor, if you lose it. They are shown only now.</p>
    <ul class="rows" id="recovery-codes">
    {{#recoveryCodes}}<li><code>{{.}}</code></li>
    {{/recoveryCodes}}</ul>
    </section>
    {{/hasRecoveryCodes}}
    <section aria-labelledby="user-heading">
    <h2 id="user-heading">You</h2>
    <dl class="user" id="user">
    <dt>User id</dt><dd id="user-id">{{userId}}</dd>
    {{#userName}}<dt>Name</dt><dd>{{userName}}</dd>{{/userName}}
    {{#userEmail}}<dt>Email</dt><dd>{{userEmail}}</dd>{{/userEmail}}
    {{#groups}}<dt>Groups</dt><dd>{{groups}}</dd>{{/groups}}
    </dl>
    </section>

    <section aria-labelledby="browsers-heading">
    <h2 id="browsers-heading">Signed-in browsers</h2>
    <ul class="rows" id="browsers">
    {{#browsers}}<li class="row" data-session="{{id}}"><strong>{{label}}</strong>{{#current}}<span class="tag">This browser</span>{{/current}}<br>
    <span class="muted">{{#address}}From {{address}} · {{/address}}Signed in {{{signedIn}}}{{#lastUsed}} · Last used {{{lastUsed}}}{{/lastUsed}}</span><br>
    <form method="post" action="{{signOutBrowserAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="session" value="{{id}}">
    <button type="submit" class="inline secondary" aria-label="Sign out {{label}}{{#current}} (this browser){{/current}}">Sign out</button></form></li>
    {{/browsers}}{{^browsers}}<li class="muted">No browser is signed in.</li>{{/browsers}}
    </ul>
    </section>

    <section aria-labelledby="apps-heading">
    <h2 id="apps-heading">Apps</h2>
    <ul class="rows" id="apps">
    {{#apps}}<li class="row" data-client="{{clientId}}"><strong>{{name}}</strong> <span class="muted">{{clientId}}</span><br>
    <span class="muted">Signed in {{{signedIn}}}{{#lastUsed}} · Last used {{{lastUsed}}}{{/lastUsed}} · Offline access: {{offline}}</span><br>
    <form method="post" action="{{removeAppAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="client" value="{{clientId}}">
    <button type="submit" class="inline secondary" aria-label="Remove {{name}} ({{clientId}})">Remove</button></form></li>
    {{/apps}}{{^apps}}<li class="muted">No app holds a sign-in of yours.</li>{{/apps}}
    </ul>
    </section>

    {{#hasConsents}}<section aria-labelledby="consents-heading">
    <h2 id="consents-heading">Apps you allowed</h2>
    <ul class="rows" id="consents">
    {{#consents}}<li class="row" data-client="{{clientId}}"><strong>{{name}}</strong> <span class="muted">{{clientId}}</span><br>
    <span class="muted">May: {{allowed}}</span><br>
    <span class="muted">Allowed {{{grantedAt}}}{{#changed}} · Last changed {{{updatedAt}}}{{/changed}}</span><br>
    <form method="post" action="{{removeConsentAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="client" value="{{clientId}}">
    <button type="submit" class="inline secondary" aria-label="Remove the access of {{name}}">Remove access</button></form></li>
    {{/consents}}</ul>
    </section>{{/hasConsents}}

    {{#hasSharedSignIns}}<section aria-labelledby="shared-heading">
    <h2 id="shared-heading">Apps signed in together on a device</h2>
    <ul class="rows" id="shared-sign-ins">
    {{#sharedSignIns}}<li class="row" data-session="{{id}}"><strong>{{apps}}</strong><br>
    <span class="muted">Signed in {{{signedIn}}}{{#lastUsed}} · Last used {{{lastUsed}}}{{/lastUsed}}</span><br>
    <form method="post" action="{{signOutSharedAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="session" value="{{id}}">
    <button type="submit" class="inline secondary" aria-label="Sign out {{apps}} on that device">Sign out all of them</button></form></li>
    {{/sharedSignIns}}
    </ul>
    </section>{{/hasSharedSignIns}}

    <section aria-labelledby="devices-heading">
    <h2 id="devices-heading">Devices</h2>
    <ul class="rows" id="devices">
    {{#devices}}<li class="row" data-device="{{clientId}}"><strong>{{deviceType}}</strong> <span class="muted">{{softwareId}}</span><br>
    <span class="muted">{{clientId}} · Registered {{{registered}}}{{#lastUsed}} · Last used {{{lastUsed}}}{{/lastUsed}}</span><br>
    <form method="post" action="{{removeDeviceAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="device" value="{{clientId}}">
    <button type="submit" class="inline danger" aria-label="Remove device {{deviceType}} {{clientId}}">Remove</button></form></li>
    {{/devices}}{{^devices}}<li class="muted">No device is registered to you.</li>{{/devices}}
    </ul>
    </section>

    {{#factors}}
    <section aria-labelledby="factors-heading">
    <h2 id="factors-heading">Second factors</h2>
    {{#changesNeedSignIn}}<p class="muted">Adding or removing a second factor asks you to sign in again first.</p>{{/changesNeedSignIn}}
    <ul class="rows" id="factors">
    <li class="row" id="authenticator"><strong>Authenticator app</strong><br>
    {{#authenticatorSince}}<span class="muted">Set up {{{authenticatorSince}}}{{#authenticatorLastUsed}} · Last used {{{authenticatorLastUsed}}}{{/authenticatorLastUsed}}</span><br>
    <form method="post" action="{{removeAuthenticatorAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    {{#lastFactor}}<label class="confirm"><input type="checkbox" id="confirm-remove-authenticator" required> It is my only second factor: remove it anyway</label>{{/lastFactor}}
    <button type="submit" class="inline danger" id="remove-authenticator" aria-label="Remove the authenticator app">Remove</button></form>{{/authenticatorSince}}
    {{^authenticatorSince}}<span class="muted">Not set up.</span>{{#offersAuthenticator}} <a class="button" id="setup-authenticator" href="{{setupAuthenticatorLink}}">Set up an authenticator app</a>{{/offersAuthenticator}}{{/authenticatorSince}}
    </li>
    <li class="row" id="passkeys"><strong>Passkeys</strong>
    <ul class="rows">
    {{#passkeys}}<li class="row" data-passkey="{{id}}"><strong>{{name}}</strong><br>
    <span class="muted">Added {{{added}}}{{#lastUsed}} · Last used {{{lastUsed}}}{{/lastUsed}}</span><br>
    <form method="post" action="{{renamePasskeyAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="passkey" value="{{id}}">
    <label class="visually-hidden" for="name-{{index}}">New name for {{name}}</label><input type="text" class="name" id="name-{{index}}" name="name" maxlength="64" value="{{name}}" required>
    <button type="submit" class="inline" aria-label="Rename {{name}}">Rename</button></form>
    <form method="post" action="{{removePasskeyAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}"><input type="hidden" name="passkey" value="{{id}}">
    {{#lastFactor}}<label class="confirm"><input type="checkbox" id="confirm-remove-passkey-{{index}}" required> It is my only second factor: remove it anyway</label>{{/lastFactor}}
    <button type="submit" class="inline danger" aria-label="Remove passkey {{name}}">Remove</button></form></li>
    {{/passkeys}}{{^passkeys}}<li class="muted">No passkey.</li>{{/passkeys}}
    </ul>
    {{#offersPasskeys}}<a class="button" id="add-passkey" href="{{addPasskeyLink}}">Add a passkey</a>{{/offersPasskeys}}
    </li>
    <li class="row" id="recovery"><strong>Recovery codes</strong><br>
    <span class="muted" id="recovery-left">{{recoveryCodesLeft}} left</span>
    {{#hasFactor}}<form method="post" action="{{renewRecoveryCodesAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" class="inline" id="renew-recovery-codes">Make new recovery codes</button></form>{{/hasFactor}}
    </li>
    </ul>
    </section>
    {{/factors}}

    <section aria-labelledby="everywhere-heading">
    <h2 id="everywhere-heading">Sign out everywhere</h2>
    <p class="muted">Ends every sign-in listed above, this browser's too.</p>
    <form method="post" action="{{signOutEverywhereAction}}"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <button type="submit" class="inline secondary" id="sign-out-everywhere">Sign out everywhere</button></form>
    </section>
    </main></body></html>
    """

    static let accountAuthenticator = layout + """
    <h1>Set up an authenticator app</h1>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    <p class="muted">Scan this code with your authenticator app, then enter the 6-digit code it shows.</p>
    <p style="text-align:center"><img id="totp-qr" src="{{image}}" width="{{size}}" height="{{size}}" alt="QR code for your authenticator app"></p>
    <p class="muted">Cannot scan? Enter this key in the app: <code id="totp-secret">{{secret}}</code></p>
    <form method="post" action="{{action}}" id="otp-form" autocomplete="off">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <input type="hidden" name="setup" value="{{setup}}">
    <label for="otp">Code from the authenticator app</label>
    <input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="64" required autofocus>
    <button type="submit" id="submit">Confirm</button>
    </form>
    <p><a href="{{back}}" id="back">Back to your account</a></p>
    </main></body></html>
    """

    static let accountPasskey = layout + """
    <h1>Add a passkey</h1>
    <p class="muted">A passkey signs you in with your device's screen lock or a security key.</p>
    <label for="passkey-name">Name for the passkey</label>
    <input type="text" id="passkey-name" maxlength="64" value="Passkey" autocomplete="off">
    <button type="button" id="passkey" data-options="{{options}}" data-action="{{action}}" data-csrf="{{csrfToken}}">Create a passkey</button>
    <p class="error" role="alert" id="passkey-error" hidden></p>
    <noscript><p class="muted">Passkeys need JavaScript.</p></noscript>
    <p><a href="{{back}}" id="back">Back to your account</a></p>
    <script nonce="{{nonce}}">
    {{{script}}}
    (function () {
      var button = document.getElementById("passkey"), error = document.getElementById("passkey-error");
      if (!window.PublicKeyCredential) { button.hidden = true; error.textContent = "This browser cannot create passkeys."; error.hidden = false; return; }
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
              error.textContent = answer.error || "The passkey was not added.";
              error.hidden = false;
            });
        }).catch(function (failure) {
          button.disabled = false;
          error.textContent = "The passkey was not created (" + (failure && failure.name || "error") + "). Try again.";
          error.hidden = false;
        });
      });
    })();
    </script>
    </main></body></html>
    """

    static let accountSignedOut = layout + """
    <h1>Signed out</h1>
    <p class="notice" role="status" id="notice">{{message}}</p>
    <p><a href="{{again}}" id="sign-in-again">Sign in to your account again</a></p>
    </main></body></html>
    """
}
