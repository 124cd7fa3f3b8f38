// An API that accepts Identity Connect access tokens, verified offline with jwt-kit and the
// broker's JWKS:
//
//     swift run resource-server-example --issuer https://id.example.com \
//         --audience https://api-a.example.com --scope api:a --port 9002
//     curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:9002/hello
//
// 200 {"hello": <sub>} for a valid token meant for this API with the scope; 401 for a missing,
// invalid, expired or other-audience token; 403 without the scope.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import JWTKit

/// The claims an API checks (RFC 9068): a standard JWT payload plus `scope`.
struct AccessToken: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim
    var iat: IssuedAtClaim
    var scope: String

    func verify(using algorithm: some JWTAlgorithm) throws {
        try exp.verifyNotExpired()
        try nbf.verifyNotBefore()
    }
}

func option(_ name: String) -> String? {
    guard let index = CommandLine.arguments.firstIndex(of: "--\(name)"), index + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[index + 1]
}

guard let issuer = option("issuer"), let audience = option("audience"), let scope = option("scope") else {
    print("usage: resource-server-example --issuer URL --audience URI --scope SCOPE [--port N]")
    exit(2)
}
let (jwks, _) = try await URLSession.shared.data(from: URL(string: "\(issuer)/.well-known/jwks.json")!)
let keys = try await JWTKeyCollection().add(jwksJSON: String(decoding: jwks, as: UTF8.self))

let router = Router()
router.get("hello") { request, _ -> Response in
    func answer(_ status: HTTPResponse.Status, _ body: [String: String]) -> Response {
        let data = (try? JSONEncoder().encode(body)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
        return answer(.unauthorized, ["error": "a bearer token is required"])
    }
    let token: AccessToken
    do {
        token = try await keys.verify(String(header.dropFirst(7)), as: AccessToken.self)
        guard token.iss.value == issuer else { throw JWTError.claimVerificationFailure(failedClaim: token.iss, reason: "issuer") }
        try token.aud.verifyIntendedAudience(includes: audience)
    } catch {
        return answer(.unauthorized, ["error": "\(error)"])
    }
    guard token.scope.split(separator: " ").contains(Substring(scope)) else {
        return answer(.forbidden, ["error": "the scope \(scope) is required"])
    }
    return answer(.ok, ["hello": token.sub.value])
}
let port = Int(option("port") ?? "9002") ?? 9002
try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port))).runService()
