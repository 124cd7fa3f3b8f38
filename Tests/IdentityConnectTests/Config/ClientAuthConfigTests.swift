import Foundation
import IdentityApp
import IdentityConfig
import IdentityCore
import Testing

/// `clientAuth` of an environment (docs/client-authentication.md): read as written, and every
/// mistake a problem naming its key path before the broker starts.
@Suite("Configuration: clientAuth")
struct ClientAuthConfigTests {
    static func environment(_ clientAuth: String, secret: String = "") -> String {
        """
        environments:
          - appKey: kid_c
        \(secret)    clientAuth: \(clientAuth)
            authServices:
        \(ConfigLoaderTests.service("s1"))
        """
    }

    static let jwks = #"'{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}'"#

    @Test("private_key_jwt with jwks or jwksUri, client_secret_jwt with a long secret: read as written")
    func read() throws {
        for (clientAuth, secret) in [("{ method: private_key_jwt, jwks: \(Self.jwks) }", ""),
                                     ("{ method: private_key_jwt, jwksUri: \"https://app.example.com/jwks.json\" }", ""),
                                     ("{ method: private_key_jwt, jwksUri: \"http://127.0.0.1:9/jwks.json\" }", ""),
                                     ("{ method: client_secret_jwt }", "    appSecret: \(String(repeating: "s", count: 32))\n")] {
            let directory = try ConfigLoaderTests.directory(["env.yaml": Self.environment(clientAuth, secret: secret)])
            let (_, clients) = try BrokerBootstrap.loadConfig(directory: directory, registry: ConfigLoaderTests.registry, environment: [:])
            let entry = try #require(clients.environments["kid_c"])
            #expect(entry.environment.clientAuth != nil)
            #expect((entry.clientKeys != nil) == clientAuth.contains("jwks:"))
        }
    }

    @Test("an unknown method, no keys, both kinds of keys, keys for a secret method, plain http elsewhere, a short secret, private or useless keys")
    func problems() throws {
        let cases: [(String, String, String, String)] = [
            ("{ method: mtls }", "", "clientAuth.method", "must be one of client_secret, client_secret_jwt, private_key_jwt"),
            ("{ jwksUri: \"https://a.example.com/k\" }", "", "clientAuth.method", "is required"),
            ("{ method: private_key_jwt }", "", "clientAuth.jwks", "needs the client's keys: jwks or jwksUri, one of them"),
            ("{ method: private_key_jwt, jwks: \(Self.jwks), jwksUri: \"https://a.example.com/k\" }", "", "clientAuth.jwks", "one of them"),
            ("{ method: client_secret, jwksUri: \"https://a.example.com/k\" }", "", "clientAuth.jwksUri", "only private_key_jwt uses the client's keys"),
            ("{ method: private_key_jwt, jwksUri: \"http://keys.example.com/k\" }", "", "clientAuth.jwksUri", "must be https"),
            ("{ method: client_secret_jwt }", "    appSecret: short-secret-1\n", "clientAuth.method", "at least 32 characters"),
            ("{ method: private_key_jwt, jwks: '{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}' }", "", "clientAuth.jwks", "holds private key material"),
            ("{ method: private_key_jwt, jwks: '{\"keys\":[]}' }", "", "clientAuth.jwks", "holds no usable public key"),
            ("{ method: private_key_jwt, jwks: 'not json' }", "", "clientAuth.jwks", "must be the JSON text of a JWK set"),
            ("{ method: private_key_jwt, jwks: \(Self.jwks) }", "    validateAuth: required\n", "validateAuth", "never sends"),
        ]
        for (clientAuth, secret, path, reason) in cases {
            let problems = try ConfigLoaderTests.problems(["env.yaml": Self.environment(clientAuth, secret: secret)]).map(\.description)
            #expect(problems.contains { $0.contains(path) && $0.contains(reason) }, "\(clientAuth): \(problems)")
        }
    }
}
