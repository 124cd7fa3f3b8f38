import Foundation
import Hummingbird
import OAuthEngine

extension Pages {
    /// The consent screen. The app's logo may come from its own origin: the page's CSP allows
    /// images from there (and from the stylesheet's origin) and nothing else new.
    func consent(_ model: ConsentPageModel) -> Response {
        let values = Self.with(model.look, [
            "title": "Allow \(model.appName)?", "appName": model.appName, "serviceName": model.serviceName,
            "logo": model.logo?.absoluteString ?? false, "account": model.account, "action": model.action,
            "csrfToken": model.csrfToken, "extraStyle": PageTemplates.consentStyle,
            "scopes": model.scopes.map { ["name": $0.name, "description": $0.description, "required": $0.required] },
            "hasResources": !model.resources.isEmpty, "resources": model.resources,
            "hasLinks": model.homepage != nil || model.policy != nil || model.termsOfService != nil,
            "homepage": model.homepage?.absoluteString ?? false, "policy": model.policy?.absoluteString ?? false,
            "terms": model.termsOfService?.absoluteString ?? false,
        ])
        return Self.html(consentTemplate.render(values), look: model.look, imageSources: model.logo.flatMap(Self.origin(of:)).map { [$0] } ?? [])
    }
}
