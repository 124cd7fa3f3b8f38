import Crypto
import CryptoExtras
import Foundation
import Hummingbird
import IdentityCore
import JOSE
import Synchronization

/// Keys the tests sign upstream id_tokens with.
enum UpstreamTestKeys {
    static let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let rotated = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let p256 = P256.Signing.PrivateKey()

    static func jwk(_ key: _RSA.Signing.PrivateKey, kid: String?) -> [String: String] {
        let primitives = try! key.publicKey.getKeyPrimitives()
        var fields = ["kty": "RSA", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent), "use": "sig"]
        if let kid { fields["kid"] = kid }
        return fields
    }

    static func jwk(_ key: P256.Signing.PrivateKey, kid: String) -> [String: String] {
        let raw = key.publicKey.rawRepresentation
        return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32)), "kid": kid]
    }
}

/// Mints compact JWS tokens, honest or hostile.
enum Mint {
    static func token(header: [String: Any], claims: [String: Any], sign: (Data) throws -> Data) rethrows -> String {
        let input = Base64URL.encode(try! JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
            + "." + Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return input + "." + Base64URL.encode(try sign(Data(input.utf8)))
    }

    static func rs256(_ claims: [String: Any], key: _RSA.Signing.PrivateKey = UpstreamTestKeys.rsa, kid: String? = "k1") -> String {
        var header: [String: Any] = ["alg": "RS256", "typ": "JWT"]
        if let kid { header["kid"] = kid }
        return token(header: header, claims: claims) { try! key.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation }
    }

    static func ps256(_ claims: [String: Any]) -> String {
        token(header: ["alg": "PS256", "kid": "k1"], claims: claims) {
            try! UpstreamTestKeys.rsa.signature(for: SHA256.hash(data: $0), padding: .PSS).rawRepresentation
        }
    }

    static func es256(_ claims: [String: Any]) -> String {
        token(header: ["alg": "ES256", "kid": "e1"], claims: claims) { try! UpstreamTestKeys.p256.signature(for: $0).rawRepresentation }
    }

    /// Standard claims for `issuer`, audience `broker`, issued now.
    static func claims(issuer: String, nonce: String?, now: Date, _ overrides: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = ["iss": issuer, "aud": "broker", "sub": "fake-user", "iat": Int(now.timeIntervalSince1970),
                                     "exp": Int(now.timeIntervalSince1970) + 300, "email": "fake@example.org"]
        if let nonce { claims["nonce"] = nonce }
        for (key, value) in overrides { claims[key] = value }
        return claims
    }
}

/// A scriptable OpenID provider on TestHTTPServer: discovery, JWKS, token endpoint (code and
/// refresh with enforced rotation), userinfo. The tests choose the id_token it hands out.
final class FakeOpenIDProvider: Sendable {
    enum RefreshMode: Sendable { case rotate, refuse, down, badClient }

    struct State: Sendable {
        var idToken: String?
        var jwks: [[String: String]] = [UpstreamTestKeys.jwk(UpstreamTestKeys.rsa, kid: "k1"), UpstreamTestKeys.jwk(UpstreamTestKeys.p256, kid: "e1")]
        var tokenStatus = 200
        var refreshMode = RefreshMode.rotate
        /// The JWKS endpoint answers 503.
        var jwksDown = false
        var issued = 1
        var extraTokenFields: [String: String] = [:]
        var discoveryIssuer: String?
    }

    let state = Mutex(State())
    let log = CallLog()

    func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get(".well-known/openid-configuration") { request, context in
            self.log.record(request, body: Data())
            let base = "http://\(request.head.authority ?? "127.0.0.1")"
            let issuer = self.state.withLock { $0.discoveryIssuer } ?? base
            return Self.json(["issuer": issuer, "authorization_endpoint": "\(base)/authorize", "token_endpoint": "\(base)/token",
                              "userinfo_endpoint": "\(base)/userinfo", "jwks_uri": "\(base)/jwks"])
        }
        router.get("jwks") { request, _ in
            self.log.record(request, body: Data())
            if self.state.withLock({ $0.jwksDown }) { return Self.json(["error": "down"], status: .serviceUnavailable) }
            return Self.json(["keys": self.state.withLock { $0.jwks }])
        }
        router.get("userinfo") { request, _ in
            self.log.record(request, body: Data())
            return Self.json(["sub": "fake-user", "email": "fake@example.org", "name": "Fake User"])
        }
        router.post("token") { request, _ in
            var request = request
            let body = Data(buffer: try await request.collectBody(upTo: 1 << 16))
            self.log.record(request, body: body)
            let form = queryItems("http://x/?" + String(decoding: body, as: UTF8.self))
            return self.state.withLock { state -> Response in
                if state.tokenStatus != 200 { return Self.json(["error": "server_error"], status: .init(code: state.tokenStatus)) }
                if form["grant_type"] == "refresh_token" {
                    switch state.refreshMode {
                    case .refuse: return Self.json(["error": "invalid_grant"], status: .badRequest)
                    case .down: return Self.json(["error": "server_error"], status: .serviceUnavailable)
                    case .badClient: return Self.json(["error": "invalid_client"], status: .unauthorized)
                    case .rotate:
                        // Rotation enforced: only the latest refresh token works.
                        guard form["refresh_token"] == "upstream-refresh-\(state.issued)" else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
                        state.issued += 1
                    }
                }
                var answer: [String: Any] = ["access_token": "upstream-access-\(state.issued)", "token_type": "Bearer", "expires_in": 60,
                                             "refresh_token": "upstream-refresh-\(state.issued)"]
                if form["grant_type"] == "authorization_code", let idToken = state.idToken { answer["id_token"] = idToken }
                for (key, value) in state.extraTokenFields { answer[key] = (try? JSONSerialization.jsonObject(with: Data(value.utf8))) ?? value }
                return Self.json(answer)
            }
        }
        return router
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
