/// The consent screen (docs/consent.md): which app asks, for what, as whom; Allow and Deny post
/// the one form, so the ticked scopes go with Allow.
extension PageTemplates {
    static let consent = layout + """
    <div class="consent-app">
    {{#logo}}<img id="app-logo" src="{{logo}}" alt="" width="48" height="48">{{/logo}}
    <h1 id="heading">{{#t}}Allow {{appName}} to use your account?{{/t}}</h1>
    </div>
    <p class="muted" id="signed-in-as">{{#t}}Signed in as <strong>{{account}}</strong> with {{serviceName}}.{{/t}}</p>
    <form method="post" action="{{action}}" id="consent-form">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <fieldset class="scopes"><legend>{{#t}}{{appName}} asks to:{{/t}}</legend>
    <ul class="accounts" id="scopes">
    {{#scopes}}<li class="scope">{{#required}}<span class="scope-fixed" id="scope-{{name}}">{{description}}</span>{{/required}}{{^required}}<label><input type="checkbox" name="grant_{{name}}" id="scope-{{name}}" value="1" checked> {{description}}</label>{{/required}}</li>
    {{/scopes}}</ul>
    </fieldset>
    {{#hasResources}}<p class="muted" id="resources">{{#t}}For:{{/t}} {{#resources}}<code>{{.}}</code> {{/resources}}</p>{{/hasResources}}
    {{#hasLinks}}<p class="muted" id="app-links">{{#homepage}}<a id="app-home" href="{{homepage}}" rel="noopener noreferrer">{{#t}}About {{appName}}{{/t}}</a> {{/homepage}}{{#policy}}<a id="app-policy" href="{{policy}}" rel="noopener noreferrer">{{#t}}Privacy policy{{/t}}</a> {{/policy}}{{#terms}}<a id="app-terms" href="{{terms}}" rel="noopener noreferrer">{{#t}}Terms of service{{/t}}</a>{{/terms}}</p>{{/hasLinks}}
    <button type="submit" name="decision" value="allow" id="allow">{{#t}}Allow{{/t}}</button>
    <button type="submit" name="decision" value="deny" id="deny" class="secondary" formnovalidate>{{#t}}Deny{{/t}}</button>
    </form>
    <p class="muted">{{#t}}You can remove this app's access at any time on your account page.{{/t}}</p>
    </main></body></html>
    """

    /// The consent screen's own rules, added to the layout's.
    static let consentStyle = """
    <style>
    .consent-app{display:flex;align-items:center;gap:.8rem}
    .consent-app h1{margin:0}
    .scopes{border:0;padding:0;margin:1rem 0}
    .scopes legend{font-size:.95rem;margin-bottom:.4rem}
    .scope{padding:.45rem 0;border-bottom:1px solid #e3e5ea}
    .scope label{display:flex;gap:.5rem;align-items:center;margin:0;font-size:.95rem}
    </style>
    """
}
