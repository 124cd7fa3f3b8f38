import Foundation
import IdentityCore
import JOSE

/// The typed `provider` options of the `oauth2` and `openid-connect` connectors
/// (docs/connectors/oauth2-oidc.md, "Options"), with Kinvey MIC's key names.
struct OAuthOptions: Sendable {
    enum GrantType: String, Sendable { case authorizationCode = "authorization_code", password }

    /// True for `openid-connect`.
    var openID: Bool
    /// Token endpoint (`remoteService`); from discovery when absent (OIDC).
    var tokenEndpoint: String?
    /// Authorization endpoint (`grantEndpoint`); from discovery when absent (OIDC).
    var authorizationEndpoint: String?
    var clientId: String
    var clientSecret: String?
    /// `clientAuth: private_key_jwt`: the key that signs the client's assertion at the token
    /// endpoint (RFC 7523) instead of any secret.
    var assertionKey: SigningKey?
    var scopes: [String]
    var grantType: GrantType
    /// Dotted path of the user id in the user-id answer, the token response or the claims.
    var userIdAttribute: String
    var userIdEndpoint: String?
    /// OIDC issuer: discovery at `<issuerId>/.well-known/openid-configuration`; the id_token's `iss`.
    var issuer: String?
    var includeClientIdInTokenRequest: Bool
    var includeClientSecretInTokenRequest: Bool
    /// id_token signature algorithms accepted (never `none`, never HS*).
    var allowedAlgorithms: Set<JOSEAlgorithm>
    /// Tolerated clock difference for `exp` / `iat` (seconds).
    var clockSkew: TimeInterval
    /// Fetch the OIDC userinfo endpoint and merge its claims (default true).
    var fetchUserInfo: Bool
    /// Total time per upstream call (seconds).
    var timeout: Int
    /// Where the upstream sends the browser back: `<issuer>/oauth/callback`.
    var redirectURI: String

    /// Reads and validates the provider section; every problem is reported with its key path.
    static func read(_ settings: ProviderSettings, issuer brokerIssuer: String) throws -> OAuthOptions {
        let openID = settings.type == "openid-connect"
        let problems = ProblemSink()
        var options = OAuthOptions(openID: openID, tokenEndpoint: nil, authorizationEndpoint: nil, clientId: "", clientSecret: nil,
                                   scopes: openID ? ["openid", "profile", "email"] : [], grantType: .authorizationCode,
                                   userIdAttribute: openID ? "sub" : "id", userIdEndpoint: nil, issuer: nil,
                                   includeClientIdInTokenRequest: false, includeClientSecretInTokenRequest: false,
                                   allowedAlgorithms: JOSEAlgorithm.defaultAllowed, clockSkew: 60, fetchUserInfo: true, timeout: 15,
                                   redirectURI: brokerIssuer.trimmingSuffix("/") + "/oauth/callback")
        if let remote = settings.remoteService {
            if ConfigReader.absoluteURL(remote, schemes: ["http", "https"]) == nil {
                problems.add(settings.problem("remoteService", "must be the upstream token endpoint, an absolute http(s) URL"))
            } else {
                options.tokenEndpoint = remote
            }
        }
        if let authentication = settings.authentication {
            problems.add(authentication, "\(settings.type) does not use authentication; use options.clientId and options.clientSecret")
        }
        guard let node = settings.options else {
            problems.add(settings.problem("options", "\(settings.type) needs options with at least clientId"))
            try problems.throwIfAny()
            return options
        }
        let reader = ConfigReader(node, problems: problems)
        options.clientId = reader.string("clientId", required: true) ?? ""
        options.clientSecret = reader.string("clientSecret").flatMap { $0.isEmpty ? nil : $0 }
        switch reader.string("clientAuth") {
        case nil, "client_secret"?: break
        case "private_key_jwt"?:
            options.assertionKey = assertionKey(reader)
            if reader.has("clientSecret") { reader.problem("clientSecret", "is never sent with clientAuth: private_key_jwt; remove it") }
        case let other?: reader.problem("clientAuth", "must be client_secret or private_key_jwt, not '\(other)'")
        }
        if options.assertionKey == nil {
            for key in ["privateKey", "privateKeyId"] where reader.has(key) {
                _ = reader.raw(key)
                reader.problem(key, "applies to clientAuth: private_key_jwt only")
            }
        }
        options.authorizationEndpoint = reader.url("grantEndpoint")?.absoluteString
        options.userIdEndpoint = reader.url("userIdEndpoint")?.absoluteString
        if let attribute = reader.string("userIdAttribute") {
            if attribute.isEmpty || attribute.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                reader.problem("userIdAttribute", "must be an attribute name or a dotted path such as user.id")
            } else {
                options.userIdAttribute = attribute
            }
        }
        if let scope = reader.strings("scope") {
            options.scopes = scope.flatMap { $0.split(separator: " ").map(String.init) }
            if openID && !options.scopes.contains("openid") { options.scopes.insert("openid", at: 0) }
        }
        if let grant = reader.string("grantType") {
            if let parsed = GrantType(rawValue: grant) { options.grantType = parsed } else {
                reader.problem("grantType", "must be authorization_code or password")
            }
        }
        options.includeClientIdInTokenRequest = reader.bool("includeClientIdInTokenRequest") ?? false
        options.includeClientSecretInTokenRequest = reader.bool("includeClientSecretInTokenRequest") ?? false
        options.timeout = reader.positiveInt("timeout") ?? 15
        if options.timeout > 300 { reader.problem("timeout", "must be at most 300 seconds") }
        if let skew = reader.int("clockSkew") {
            if (0...600).contains(skew) { options.clockSkew = TimeInterval(skew) } else { reader.problem("clockSkew", "must be 0 to 600 seconds") }
        }
        if openID {
            options.issuer = reader.url("issuerId", required: true)?.absoluteString
            options.fetchUserInfo = reader.bool("userInfo") ?? true
            if let names = reader.strings("allowedAlgorithms") {
                var allowed: Set<JOSEAlgorithm> = []
                for name in names {
                    switch JOSEAlgorithm.parseAllowed(name) {
                    case .success(let algorithm): allowed.insert(algorithm)
                    case .failure(let error): reader.problem("allowedAlgorithms", error.reason)
                    }
                }
                if names.isEmpty { reader.problem("allowedAlgorithms", "must name at least one algorithm") }
                options.allowedAlgorithms = allowed
            }
        } else {
            for key in ["issuerId", "allowedAlgorithms", "userInfo"] where reader.has(key) {
                _ = reader.raw(key)
                reader.problem(key, "applies to openid-connect only")
            }
            if options.tokenEndpoint == nil && settings.remoteService == nil {
                problems.add(settings.problem("remoteService", "oauth2 needs remoteService: the upstream token endpoint"))
            }
            if options.grantType == .authorizationCode && options.authorizationEndpoint == nil && !reader.has("grantEndpoint") {
                reader.problem("grantEndpoint", "oauth2 with authorization_code needs grantEndpoint: the upstream authorization URL")
            }
        }
        reader.finish()
        try problems.throwIfAny()
        return options
    }
}

extension OAuthOptions {
    /// `privateKey` (a PEM private key, RSA of 2048 bits or more or EC P-256, usually by
    /// `${file:…}`), signing RS256 or ES256, named `privateKeyId` or else its RFC 7638 thumbprint
    /// (what the provider sees as the assertion's `kid`).
    static func assertionKey(_ reader: ConfigReader) -> SigningKey? {
        guard let pem = reader.string("privateKey", required: true) else { return nil }
        let named = reader.string("privateKeyId")
        for algorithm in [JOSEAlgorithm.rs256, .es256] {
            guard let key = try? SigningKey(kid: named ?? "", algorithm: algorithm, pem: pem) else { continue }
            guard named == nil else { return key }
            let fields = key.publicKey.publicFields.mapValues { JSONValue.string($0) }
            guard let thumbprint = JWKThumbprint.sha256(of: fields) else { return key }
            return try? SigningKey(kid: thumbprint, algorithm: algorithm, pem: pem)
        }
        reader.problem("privateKey", "must be a PEM private key: RSA of 2048 bits or more, or EC P-256")
        return nil
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
