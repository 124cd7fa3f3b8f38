/// Mustache sources of the hosted pages. Kept in code so the binary is self-contained
/// (no resource bundle to ship next to a static executable).
enum PageTemplates {
    static let layout = """
    <!doctype html>
    <html lang="{{lang}}" dir="{{dir}}">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{title}}{{#productName}} · {{productName}}{{/productName}}</title>
    {{#favicon}}<link rel="icon" href="{{favicon}}">{{/favicon}}
    <style>
    :root{--primary:#2456d3;--page:#f4f5f7;--text:#1d2330;--field-border:#767c8a}
    body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--page);margin:0;color:var(--text)}
    main{max-width:360px;margin:10vh auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 2px 12px rgba(0,0,0,.08)}
    h1{font-size:1.35rem;margin:0 0 1.25rem}
    a{color:var(--primary)}
    label{display:block;font-size:.9rem;margin:.9rem 0 .3rem}
    input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid var(--field-border);border-radius:6px;font-size:1rem}
    button{margin-top:1.4rem;width:100%;padding:.7rem;border:0;border-radius:6px;background:var(--primary);color:#fff;font-size:1rem;cursor:pointer}
    .error{background:#fdecea;color:#8a1c12;padding:.7rem;border-radius:6px;font-size:.92rem}
    .muted{color:#5d6577;font-size:.85rem}
    .accounts{list-style:none;padding:0;margin:0}
    .account{display:block;padding:.7rem;margin:.4rem 0;border:1px solid var(--field-border);border-radius:6px;color:inherit;text-decoration:none}
    button.secondary{background:#fff;color:var(--primary);border:1px solid var(--primary);margin-top:.6rem}
    a.button{display:block;box-sizing:border-box;text-align:center;margin-top:1rem;width:100%;padding:.7rem;border-radius:6px;background:var(--primary);color:#fff;text-decoration:none}
    button.link{width:auto;margin:0 0 1rem;padding:0;background:none;border:0;color:var(--primary);text-decoration:underline;font-size:.85rem}
    a.button.secondary{background:#fff;color:var(--primary);border:1px solid var(--primary);margin-top:.6rem}
    .brand{display:flex;align-items:center;gap:.6rem;margin:0 0 1.2rem;font-weight:600;color:var(--text)}
    .brand img{max-height:40px;max-width:160px}
    .page-links{display:flex;justify-content:space-between;gap:1rem;font-size:.9rem;margin-top:1.2rem}
    #qr-phone{display:none}
    @media (max-width:600px){#qr-phone{display:block;margin-bottom:1.5rem}}
    </style>
    {{{brandStyle}}}
    {{{extraStyle}}}
    {{#stylesheet}}<link rel="stylesheet" href="{{stylesheet}}">{{/stylesheet}}
    </head>
    <body><main{{#wide}} class="wide"{{/wide}}>
    {{#brand}}<header class="brand" id="brand">{{#logo}}<img src="{{logo}}" alt="{{#productName}}{{productName}}{{/productName}}" id="brand-logo">{{/logo}}{{#productName}}<span id="brand-name">{{productName}}</span>{{/productName}}</header>{{/brand}}
    """

    static let login = layout + """
    <h1>{{heading}}</h1>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}" autocomplete="on">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <label for="username">{{#t}}Username{{/t}}</label>
    <input type="text" id="username" name="username" value="{{username}}" autocomplete="username" autocapitalize="none" required{{^retry}} autofocus{{/retry}}>
    <label for="password">{{#t}}Password{{/t}}</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required{{#retry}} autofocus aria-invalid="true" aria-describedby="error"{{/retry}}>
    <button type="submit" id="submit">{{#t}}Sign in{{/t}}</button>
    </form>
    {{#qrStart}}<p style="text-align:center"><a id="qr-start" href="{{qrStart}}">{{#t}}Sign in with a QR code{{/t}}</a></p>{{/qrStart}}
    {{#hasPageLinks}}<p class="page-links">{{#forgotPassword}}<a id="forgot-password" href="{{forgotPassword}}">{{#t}}Forgot password?{{/t}}</a>{{/forgotPassword}}{{#help}}<a id="help" href="{{help}}">{{#t}}Help{{/t}}</a>{{/help}}</p>{{/hasPageLinks}}
    </main></body></html>
    """

    static let accounts = layout + """
    <h1>{{heading}}</h1>
    <p class="muted">{{#t}}Choose an account to continue.{{/t}}</p>
    <ul class="accounts">
    {{#accounts}}<li><a class="account" href="{{link}}"><strong>{{label}}</strong><br><span class="muted">{{detail}}</span></a></li>
    {{/accounts}}</ul>
    <p><a id="another-account" href="{{anotherAccount}}">{{#t}}Use another account{{/t}}</a></p>
    </main></body></html>
    """

    static let autoPost = layout + """
    <h1>{{heading}}</h1>
    <form method="post" action="{{action}}" id="upstream">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<noscript><button type="submit">{{#t}}Continue{{/t}}</button></noscript>
    </form>
    <script nonce="{{nonce}}">document.getElementById("upstream").submit();</script>
    </main></body></html>
    """

    static let logoutConfirm = layout + """
    <h1>{{#clientName}}{{#t}}Sign out of {{clientName}}?{{/t}}{{/clientName}}{{^clientName}}{{#t}}Sign out?{{/t}}{{/clientName}}</h1>
    <p class="muted">{{#clientName}}{{#t}}{{clientName}} asks to sign you out.{{/t}} {{/clientName}}{{#t}}This signs you out of every app in this browser.{{/t}}</p>
    <form method="post" action="{{action}}">
    {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">
    {{/fields}}<input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <input type="hidden" name="confirm" value="yes">
    <button type="submit" id="confirm">{{#t}}Sign out{{/t}}</button>
    </form>
    {{#cancel}}<a class="button secondary" id="cancel" href="{{cancel}}">{{#t}}Cancel: stay signed in{{/t}}</a>{{/cancel}}
    {{^cancel}}<p class="muted" id="cancel-hint">{{#t}}To stay signed in, close this page.{{/t}}</p>{{/cancel}}
    </main></body></html>
    """

    static let signedOut = layout + """
    <h1>{{#t}}Signed out{{/t}}</h1>
    <p class="muted">{{#t}}You have been signed out. You can close this window.{{/t}}</p>
    </main></body></html>
    """

    static let error = layout + """
    <h1>{{heading}}</h1>
    <p class="error" role="alert">{{message}}</p>
    {{#details}}<p class="muted" id="details" lang="en">{{details}}</p>{{/details}}
    <p class="muted" id="advice">{{advice}} {{#t}}(Error code: {{code}}.){{/t}}</p>
    {{#back}}<a class="button secondary" id="back" href="{{back}}">{{#t}}Back to the app{{/t}}</a>{{/back}}
    </main></body></html>
    """
}
