import Foundation
import IdentityCore

/// Turns the merged configuration tree into ``BrokerConfig``, reporting every problem.
package struct BrokerConfigReader {
    let problems: ProblemSink
    let directory: URL

    private static let identifierCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-"))

    func read(_ root: ConfigNode) -> BrokerConfig {
        let top = ConfigReader(root, problems: problems)
        var config = BrokerConfig(directory: directory)
        config.server = top.section("server") { readServer($0) } ?? ServerSettings()
        if let port = config.server.port, port > 65535 { top.problem("server", "port must be at most 65535") }
        config.storage = top.string("storage")
        if let storage = config.storage, storage.isEmpty { top.problem("storage", "must not be empty") }
        config.vaultKeys = top.section("vault") { reader in
            reader.list("keys", required: true) { key in readVaultKey(key) } ?? []
        }
        config.signingAlgorithm = top.section("signing") { reader -> SigningAlgorithm in
            guard let text = reader.string("algorithm") else { return .rs256 }
            guard let algorithm = SigningAlgorithm(rawValue: text.uppercased()) else {
                reader.problem("algorithm", "must be RS256 or ES256")
                return .rs256
            }
            return algorithm
        } ?? .rs256
        config.organizations = top.list("organizations") { reader in
            guard let id = identifier(reader, "id") else { return nil }
            let services = reader.list("authServices") { readAuthService($0) } ?? []
            return Organization(id: id, authServices: services, apiResources: readAPIResources(reader),
                                location: reader.node.location, keyPath: reader.node.keyPath)
        } ?? []
        config.environments = top.list("environments") { readEnvironment($0) } ?? []
        top.finish()
        return config
    }

    private func identifier(_ reader: ConfigReader, _ key: String) -> String? {
        guard let value = reader.string(key, required: true), !value.isEmpty else { return nil }
        if value.unicodeScalars.contains(where: { !Self.identifierCharacters.contains($0) }) {
            reader.problem(key, "may contain only letters, digits, '_' and '-'")
        }
        return value
    }

    private func readVaultKey(_ reader: ConfigReader) -> VaultKeySetting? {
        guard let id = reader.string("id", required: true) else { return nil }
        guard let secret = reader.string("secret", required: true) else { return nil }
        guard let bytes = Data(base64Encoded: secret), bytes.count == 32 else {
            reader.problem("secret", "must be 32 bytes, base64-encoded")
            return nil
        }
        return VaultKeySetting(id: id, secret: Array(bytes))
    }

    private func readEnvironment(_ reader: ConfigReader) -> Environment? {
        guard let appKey = identifier(reader, "appKey") else { return nil }
        let validateAuth = reader.string("validateAuth").flatMap { text -> Environment.ValidateAuth? in
            guard let value = Environment.ValidateAuth(rawValue: text) else {
                reader.problem("validateAuth", "must be optional or required")
                return nil
            }
            return value
        } ?? .optional
        let appSecret = reader.string("appSecret")
        if let appSecret, appSecret.count < 8 { reader.problem("appSecret", "must be at least 8 characters") }
        let clientAuth = reader.section("clientAuth") { readClientAuth($0, appSecret: appSecret) } ?? nil
        if validateAuth == .required, let method = clientAuth?.method, method != .clientSecret {
            reader.problem("validateAuth", "required takes Basic appKey:appSecret, which a \(method.rawValue) environment never sends; "
                           + "its back ends use POST /oauth/introspect")
        }
        // Read first: its `strings` may add a language the environment's services name as `locale`.
        let branding = reader.section("branding") { readBranding($0) }
        var environment = Environment(
            appKey: appKey,
            appSecret: appSecret,
            name: reader.string("name"),
            organization: reader.string("organization"),
            defaultAuthService: reader.string("defaultAuthService"),
            authServices: reader.list("authServices") { readAuthService($0, environmentBranding: branding) } ?? [],
            validateAuth: validateAuth,
            registration: reader.section("registration") { readRegistration($0) },
            dataLinks: reader.list("dataLinks") { readDataLink($0) } ?? [],
            apiResources: readAPIResources(reader),
            location: reader.node.location, keyPath: reader.node.keyPath)
        environment.clientAuth = clientAuth
        environment.branding = branding
        environment.requireSignedRequestObject = reader.bool("requireSignedRequestObject") ?? false
        if environment.requireSignedRequestObject, (clientAuth?.method ?? .clientSecret) == .clientSecret {
            reader.problem("requireSignedRequestObject", "needs clientAuth private_key_jwt or client_secret_jwt: the keys its requests are signed with")
        }
        return environment
    }

    /// `clientAuth`: the method, and for `private_key_jwt` exactly one place for the keys. A
    /// `client_secret_jwt` secret keys HMAC-SHA256, so it must hold at least 256 bits
    /// (RFC 7518 §3.2): 32 characters.
    private func readClientAuth(_ reader: ConfigReader, appSecret: String?) -> ClientAuthSettings? {
        guard let text = reader.string("method", required: true) else { return nil }
        guard let method = ClientAuthSettings.Method(rawValue: text) else {
            reader.problem("method", "must be one of \(ClientAuthSettings.Method.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        let jwks = reader.string("jwks"), jwksUri = reader.url("jwksUri")
        switch method {
        case .privateKeyJWT:
            if (jwks == nil) == (jwksUri == nil) { reader.problem("jwks", "private_key_jwt needs the client's keys: jwks or jwksUri, one of them") }
            if let jwksUri, jwksUri.scheme != "https", jwksUri.scheme != "http" || !["127.0.0.1", "localhost", "::1"].contains(jwksUri.host ?? "") {
                reader.problem("jwksUri", "must be https (plain http only on loopback): whoever changes the keys in transit becomes the client")
            }
        case .clientSecretJWT, .clientSecret:
            if jwks != nil || jwksUri != nil { reader.problem(jwks != nil ? "jwks" : "jwksUri", "only private_key_jwt uses the client's keys") }
            if method == .clientSecretJWT, (appSecret?.count ?? 0) < 32 {
                reader.problem("method", "client_secret_jwt signs with appSecret, which must then be at least 32 characters")
            }
        }
        return ClientAuthSettings(method: method, jwks: jwks, jwksUri: jwksUri)
    }

    private func readRegistration(_ reader: ConfigReader) -> RegistrationSettings {
        let tokens = reader.strings("initialAccessTokens") ?? []
        var statements: [String: SoftwareStatementTrust] = [:]
        if let node = reader.raw("softwareStatements") {
            let softwareReader = ConfigReader(node, problems: problems)
            if case .map(let entries) = node.value {
                for entry in entries {
                    softwareReader.section(entry.key) { item in
                        let issuer = item.string("issuer")
                        if let jwks = item.string("jwks", required: true) {
                            statements[entry.key] = SoftwareStatementTrust(jwks: jwks, issuer: issuer)
                        }
                    }
                }
            }
            softwareReader.finish()
        }
        return RegistrationSettings(initialAccessTokens: tokens, softwareStatements: statements)
    }

    private func readDataLink(_ reader: ConfigReader) -> DataLink? {
        guard let name = identifier(reader, "name"), let url = reader.url("url", required: true) else { return nil }
        var link = DataLink(name: name, url: url, authKey: reader.string("authKey"),
                            authServices: reader.strings("authServices"),
                            timeoutSeconds: reader.positiveInt("timeout") ?? 30)
        link.requireMfa = reader.bool("requireMfa") ?? false
        return link
    }

    func readAuthService(_ reader: ConfigReader, environmentBranding: PageBranding? = nil) -> AuthService? {
        let id = reader.string("id", required: true)
        if let id, id.isEmpty || id.contains(where: { $0.isWhitespace || $0 == "/" }) {
            reader.problem("id", "must be non-empty and contain no spaces or '/'")
        }
        // Kinvey fields that mean nothing here: accepted so exported definitions load unchanged.
        reader.ignore("identityStoreId", "access", "description", "uniqueUserContextField")
        let redirectURIs = reader.strings("redirectUri", required: true) ?? []
        if reader.has("redirectUri") && redirectURIs.isEmpty { reader.problem("redirectUri", "must not be empty") }
        for uri in redirectURIs where !Self.isValidRedirectURI(uri) {
            reader.problem("redirectUri", "'\(uri)' is not an absolute URI without a fragment")
        }
        let tokenFormat = reader.string("tokenFormat").flatMap { text -> AuthService.TokenFormat? in
            guard let format = AuthService.TokenFormat(rawValue: text) else {
                reader.problem("tokenFormat", "must be jwt or opaque")
                return nil
            }
            return format
        } ?? .jwt
        let customizedLogin = reader.section("customizedLogin") { readCustomizedLogin($0) } ?? nil
        let qrLogin = reader.section("qrLogin") { readQRLogin($0) } ?? nil
        let deviceGrant = reader.section("deviceGrant") { readDeviceGrant($0) } ?? nil
        let tokenExchange = reader.section("tokenExchange") { readTokenExchange($0) }
        let nativeSSO = reader.bool("nativeSSO") ?? false
        let dpop = reader.section("dpop") { DPoPSettings(required: $0.bool("required") ?? false, nonce: $0.bool("nonce") ?? false) }
        let allowedScopes = reader.strings("allowedScopes")
        let requirePar = reader.bool("requirePar") ?? false
        let mfa = reader.section("mfa") { readMFA($0) } ?? .off
        let webOrigins = readWebOrigins(reader, redirectURIs: redirectURIs)
        let provider = reader.section("provider", required: true) { readProvider($0) } ?? nil
        let name = reader.string("name")
        let grantTtl = reader.positiveInt("grantTtl") ?? AuthService.defaultGrantTtl
        let tokenTtl = reader.positiveInt("tokenTtl") ?? AuthService.defaultTokenTtl
        let refresh = reader.bool("refresh") ?? true
        let refreshTtl = reader.positiveInt("refreshTtl") ?? AuthService.defaultRefreshTtl
        let sessionMaxAge = reader.positiveInt("sessionMaxAge") ?? AuthService.defaultSessionMaxAge
        guard let id, let provider else { return nil }
        var service = AuthService(
            id: id, name: name, redirectURIs: redirectURIs, grantTtl: grantTtl, tokenTtl: tokenTtl,
            refresh: refresh, refreshTtl: refreshTtl, sessionMaxAge: sessionMaxAge, tokenFormat: tokenFormat,
            customizedLogin: customizedLogin, qrLogin: qrLogin, allowedScopes: allowedScopes, requirePar: requirePar,
            provider: provider,
            location: reader.node.location, keyPath: reader.node.keyPath)
        service.mfa = mfa
        service.webOrigins = webOrigins
        service.backchannelLogoutURI = readBackchannelLogoutURI(reader)
        service.consent = reader.section("consent") { readConsent($0) } ?? nil
        service.branding = reader.section("branding") { readBranding($0) }
        service.locale = readLocale(reader, branding: service.branding?.over(environmentBranding) ?? environmentBranding)
        service.deviceGrant = deviceGrant
        service.tokenExchange = tokenExchange
        service.nativeSSO = nativeSSO
        service.dpop = dpop
        return service
    }

    private func readCustomizedLogin(_ reader: ConfigReader) -> AuthService.CustomizedLogin? {
        let type = reader.string("type", required: true)
        guard let url = reader.url("url", required: true) else { return nil }
        switch type {
        case "css": return .css(url)
        case "page": return .page(url)
        case nil: return nil
        default:
            reader.problem("type", "must be css or page")
            return nil
        }
    }

    private func readProvider(_ reader: ConfigReader) -> ProviderSettings? {
        let type = reader.string("type", required: true)
        if let type, !ConnectorRegistry.specifiedTypes.contains(type) {
            reader.problem("type", "unknown provider type '\(type)' (known: \(ConnectorRegistry.specifiedTypes.sorted().joined(separator: ", ")))")
        }
        let settings = ProviderSettings(
            type: type ?? "",
            remoteService: reader.string("remoteService"),
            authentication: reader.raw("authentication"),
            options: reader.raw("options"),
            allowedAttributes: reader.strings("allowedAttributes"),
            datalinkHeaderMapping: reader.stringMap("datalinkHeaderMapping") ?? [:],
            node: reader.node)
        for (attribute, header) in settings.datalinkHeaderMapping where !Self.isHeaderName(header) {
            reader.problem("datalinkHeaderMapping", "'\(header)' (for \(attribute)) is not a valid HTTP header name")
        }
        return type == nil ? nil : settings
    }

    /// RFC 6749 §3.1.2: absolute URI, no fragment.
    package static func isValidRedirectURI(_ text: String) -> Bool {
        guard !ConfigReader.hasFragment(text), let components = URLComponents(string: text),
              let scheme = components.scheme, !scheme.isEmpty else { return false }
        let lower = scheme.lowercased()
        if lower == "http" || lower == "https" { return !(components.host ?? "").isEmpty }
        return lower != "javascript" && lower != "data" && text.count > scheme.count + 1
    }

    static func isHeaderName(_ text: String) -> Bool {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        return !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && token.contains($0) }
    }
}

extension String {
    var trimmingTrailingSlash: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
