/// The device pages (docs/device-grant.md).
extension PageTemplates {
    static let deviceCodeForm = layout + """
    <h1>{{heading}}</h1>
    <p class="muted">{{#t}}Type the code your TV, device or command line shows.{{/t}}</p>
    {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
    <form method="post" action="{{action}}" autocomplete="off">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <label for="user_code">{{#t}}Code{{/t}}</label>
    <input type="text" id="user_code" name="user_code" value="{{userCode}}" autocapitalize="characters" spellcheck="false"
     inputmode="text" maxlength="32" required autofocus{{#error}} aria-invalid="true" aria-describedby="error"{{/error}}>
    <button type="submit" id="submit">{{#t}}Continue{{/t}}</button>
    </form>
    </main></body></html>
    """

    static let deviceConfirmation = layout + """
    <h1>{{#t}}Sign in to {{appName}} on a device?{{/t}}</h1>
    <p>{{#t}}A device asks to sign in to <strong>{{appName}}</strong> with {{serviceName}}.{{/t}}</p>
    <p>{{#t}}Check that your device shows this code:{{/t}}</p>
    <p style="text-align:center;font-size:1.6rem;letter-spacing:.12em" id="user-code"><strong>{{userCode}}</strong></p>
    {{#hasAccess}}<p class="muted">{{#t}}The device will get:{{/t}}</p>
    <ul>{{#access}}<li>{{.}}</li>{{/access}}</ul>{{/hasAccess}}
    <p class="muted">{{#t}}Continue only if you started this on your own device. If someone sent you this code, cancel.{{/t}}</p>
    <form method="post" action="{{action}}">
    <input type="hidden" name="csrf_token" value="{{csrfToken}}">
    <input type="hidden" name="user_code" value="{{userCodeValue}}">
    <button type="submit" id="allow" name="decision" value="allow">{{#t}}Continue{{/t}}</button>
    <button type="submit" id="deny" name="decision" value="deny" class="secondary">{{#t}}Cancel{{/t}}</button>
    </form>
    </main></body></html>
    """

    static let deviceFinished = layout + """
    <h1>{{heading}}</h1>
    <p {{^signedIn}}class="error" role="alert" {{/signedIn}}id="device-result">{{message}}</p>
    {{#again}}<p><a id="again" href="{{again}}">{{#t}}Type a code again{{/t}}</a></p>{{/again}}
    </main></body></html>
    """
}
