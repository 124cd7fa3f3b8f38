import Foundation
import IdentityConfig
import IdentityCore

/// The configuration of an ``EngineFixture``, in code.
extension EngineFixture {
    /// A `static` auth service named "Test `id`" that knows `users`, with the fixture's two
    /// redirect URIs (a web app's and a native app's); `adjust` changes any other setting
    /// (`$0.mfa = MFASettings(mode: .required)`, `$0.qrLogin = QRLoginSettings()`, …).
    public static func service(_ id: String, users: [TestUser] = [.alice, .bob],
                               redirectURIs: [String] = [EngineFixture.redirect, EngineFixture.nativeRedirect],
                               _ adjust: (inout AuthService) -> Void = { _ in }) -> AuthService {
        let node = ConfigNode(.object(["type": .string("static"), "options": .object(["users": .array(users.map(\.staticEntry))])]),
                              keyPath: "authServices.\(id).provider")
        let provider = ProviderSettings(type: "static", remoteService: nil, authentication: nil, options: node["options"],
                                        allowedAttributes: ["id", "audience", "email", "name", "groups", "client_token"],
                                        datalinkHeaderMapping: [:], node: node)
        var service = AuthService(id: id, name: "Test \(id)", redirectURIs: redirectURIs, provider: provider)
        adjust(&service)
        return service
    }

    /// The auth services of the default environment (as `TestBroker.defaultConfig()` has them):
    /// `users` (codes live 60 s, access tokens 600 s), `opaque` tokens, `norefresh`, a customer's
    /// login `page`, a `styled` login page.
    public static var defaultServices: [AuthService] {
        [
            service("users") {
                $0.grantTtl = 60
                $0.tokenTtl = 600
            },
            service("opaque") { $0.tokenFormat = .opaque },
            service("norefresh") { $0.refresh = false },
            service("page") { $0.customizedLogin = .page(URL(string: "https://login.example.com/page")!) },
            service("styled") { $0.customizedLogin = .css(URL(string: "https://cdn.example.com/login.css")!) },
        ]
    }

    /// An environment of `services` (the first is the default unless `defaultService` names
    /// another); `adjust` sets the rest (`$0.registration = …`, `$0.apiResources = …`).
    public static func environment(appKey: String = EngineFixture.appKey, appSecret: String? = EngineFixture.appSecret,
                                   services: [AuthService] = EngineFixture.defaultServices, defaultService: String? = nil,
                                   _ adjust: (inout Environment) -> Void = { _ in }) -> Environment {
        var environment = Environment(appKey: appKey, appSecret: appSecret, defaultAuthService: defaultService ?? services.first?.id,
                                      authServices: services)
        adjust(&environment)
        return environment
    }
}
