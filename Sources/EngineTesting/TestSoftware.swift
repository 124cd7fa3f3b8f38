import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import OAuthEngine

/// An app vendor whose instances register themselves (docs/protocol.md, "Mobile app instances"):
/// its software id, the key that signs its software statements, and the environment settings that
/// trust it.
public enum TestSoftware {
    public static let id = "CSI"
    public static let initialAccessToken = "initial-access-token-0123456789"
    public static let key = try! SigningKey.generate(.es256)

    /// `registration` of an environment that trusts ``key`` for ``id``.
    public static var registration: RegistrationSettings {
        let jwks = try! JSONEncoder().encode(["keys": [key.publicKey.publicFields]])
        return RegistrationSettings(initialAccessTokens: [initialAccessToken],
                                    softwareStatements: [id: SoftwareStatementTrust(jwks: String(decoding: jwks, as: UTF8.self))])
    }

    /// A software statement signed with `key`: the native redirect URI, scope `openid native`,
    /// the grant types instances may have; `claims` replace or add claims.
    public static func statement(key: SigningKey = key, expires: Date, claims: [String: JSONValue] = [:]) throws -> String {
        var payload: [String: JSONValue] = [
            "iss": .string("https://vendor.example.com"), "software_id": .string(id), "exp": .int(expires.epochSeconds),
            "redirect_uris": .array([.string(EngineFixture.nativeRedirect)]), "scope": .string("openid native"),
            "grant_types": .array(["authorization_code", "refresh_token", "client_credentials"].map { .string($0) }),
        ]
        payload.merge(claims) { $1 }
        return try CompactJWS.sign(payload: try JSONEncoder().encode(JSONValue.object(payload)), type: "JWT", key: key)
    }

    /// The body of `POST /oauth/register` carrying `statement`.
    public static func body(_ statement: String, deviceType: String = "iphone") -> [String: JSONValue] {
        ["software_id": .string(id), "software_statement": .string(statement), "device_type": .string(deviceType),
         "redirect_uris": .array([.string(EngineFixture.nativeRedirect)])]
    }
}

extension EngineFixture {
    /// An environment like the default one that registers instances of ``TestSoftware``.
    public static func registeringEnvironment() -> Environment {
        environment { $0.registration = TestSoftware.registration }
    }

    /// Registers an instance of ``TestSoftware`` (statement valid ten minutes from now).
    public func registerInstance(deviceType: String = "iphone") async throws -> RegistrationResponse {
        let statement = try TestSoftware.statement(expires: clock.now().addingTimeInterval(600))
        return try await engine.registration.register(body: TestSoftware.body(statement, deviceType: deviceType),
                                                      initialAccessToken: TestSoftware.initialAccessToken)
    }

    /// The instance's own credentials (HTTP Basic `client_id:client_secret`).
    public static func credentials(of instance: RegistrationResponse) -> BasicCredentials {
        BasicCredentials(user: instance.client_id, password: instance.client_secret ?? "")
    }

    /// Signs `username` in through the instance in a browser and redeems the code with the
    /// instance's credentials and PKCE: what binds an instance to its user (docs/security.md, rule 1).
    public func signIn(instance: RegistrationResponse, username: String = TestUser.alice.username,
                       password: String = TestUser.alice.password) async throws -> TokenResponse {
        var browser = BrowserContext()
        let pairs = Self.authorizationPairs(clientId: instance.client_id, redirectURI: Self.nativeRedirect)
        let completion = try await signedIn(pairs, username: username, password: password, browser: &browser)
        return try await exchange(try Self.require(Self.query(completion.redirect)["code"], "a code"), clientId: instance.client_id,
                                  redirectURI: Self.nativeRedirect, basic: Self.credentials(of: instance))
    }
}
