import Foundation
import Hummingbird
import OAuthEngine
import PageLanguages

extension Pages {
    /// The consent screen. The app's logo may come from its own origin: the page's CSP allows
    /// images from there (and from the stylesheet's origin) and nothing else new.
    func consent(_ model: ConsentPageModel) -> Response {
        let words = Self.words(model.look)
        let values = Self.with(model.look, words, [
            "title": PageText.fill(words("Allow {0}?"), [model.appName]), "appName": model.appName, "serviceName": model.serviceName,
            "logo": model.logo?.absoluteString ?? false, "account": model.account, "action": model.action,
            "csrfToken": model.csrfToken, "extraStyle": PageTemplates.consentStyle,
            "scopes": model.scopes.map { ["name": $0.name, "description": words($0.description), "required": $0.required] },
            "hasResources": !model.resources.isEmpty, "resources": model.resources,
            "hasLinks": model.homepage != nil || model.policy != nil || model.termsOfService != nil,
            "homepage": model.homepage?.absoluteString ?? false, "policy": model.policy?.absoluteString ?? false,
            "terms": model.termsOfService?.absoluteString ?? false,
        ])
        return Self.html(render(.consent, words, values), look: model.look, imageSources: model.logo.flatMap(Self.origin(of:)).map { [$0] } ?? [])
    }
}
