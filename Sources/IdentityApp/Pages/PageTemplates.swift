/// Mustache sources of the hosted pages. Kept in code so the binary is self-contained
/// (no resource bundle to ship next to a static executable).
enum PageTemplates {
    static let layout = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{title}}</title>
    <style>
    body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}
    main{max-width:360px;margin:10vh auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 2px 12px rgba(0,0,0,.08)}
    h1{font-size:1.35rem;margin:0 0 1.25rem}
    label{display:block;font-size:.9rem;margin:.9rem 0 .3rem}
    input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #c5c9d3;border-radius:6px;font-size:1rem}
    button{margin-top:1.4rem;width:100%;padding:.7rem;border:0;border-radius:6px;background:#2456d3;color:#fff;font-size:1rem;cursor:pointer}
    .error{background:#fdecea;color:#8a1c12;padding:.7rem;border-radius:6px;font-size:.92rem}
    .muted{color:#5d6577;font-size:.85rem}
    .accounts{list-style:none;padding:0;margin:0}
    .account{display:block;padding:.7rem;margin:.4rem 0;border:1px solid #c5c9d3;border-radius:6px;color:inherit;text-decoration:none}
    </style>
    {{{extraStyle}}}
    {{#stylesheet}}<link rel="stylesheet" href="{{stylesheet}}">{{/stylesheet}}
    </head>
    <body><main{{#wide}} class="wide"{{/wide}}>
    """

    static let login = layout + """
    <h1>{{heading}}</h1>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}" autocomplete="on">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <label for="username">Username</label>
    <input type="text" id="username" name="username" value="{{username}}" autocomplete="username" autocapitalize="none" required autofocus>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <button type="submit" id="submit">Sign in</button>
    </form>
    {{#qrStart}}<p style="text-align:center"><a id="qr-start" href="{{qrStart}}">Sign in with a QR code</a></p>{{/qrStart}}
    </main></body></html>
    """

    static let accounts = layout + """
    <h1>{{heading}}</h1>
    <p class="muted">Choose an account to continue.</p>
    <ul class="accounts">
    {{#accounts}}<li><a class="account" href="{{link}}"><strong>{{label}}</strong><br><span class="muted">{{detail}}</span></a></li>
    {{/accounts}}</ul>
    <p><a id="another-account" href="{{anotherAccount}}">Use another account</a></p>
    </main></body></html>
    """

    static let autoPost = layout + """
    <h1>{{heading}}</h1>
    <form method="post" action="{{action}}" id="upstream">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<noscript><button type="submit">Continue</button></noscript>
    </form>
    <script nonce="{{nonce}}">document.getElementById("upstream").submit();</script>
    </main></body></html>
    """

    static let logoutConfirm = layout + """
    <h1>Sign out?</h1>
    <p class="muted">{{#clientName}}{{clientName}} asks to sign you out. {{/clientName}}This signs you out of every app in this browser.</p>
    <form method="post" action="{{action}}">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <input type="hidden" name="confirm" value="yes">
    <button type="submit" id="confirm">Sign out</button>
    </form>
    </main></body></html>
    """

    static let signedOut = layout + """
    <h1>Signed out</h1>
    <p class="muted">You have been signed out. You can close this window.</p>
    </main></body></html>
    """

    static let error = layout + """
    <h1>{{heading}}</h1>
    <p class="error" role="alert">{{message}}</p>
    <p class="muted">Error code: {{code}}. Return to the app and start signing in again.</p>
    </main></body></html>
    """
}
