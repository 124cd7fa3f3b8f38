import Foundation
import IdentityCore

/// The OIDC `claims` request parameter (OIDC Core 5.5), reduced to what the broker acts on:
/// the claim names asked for in the ID token and at userinfo. Values and `essential` do not
/// change what the broker can say, so only names are kept.
public struct ClaimsRequest: Codable, Sendable, Equatable {
    public var idToken: [String]
    public var userinfo: [String]

    public init(idToken: [String] = [], userinfo: [String] = []) {
        self.idToken = idToken
        self.userinfo = userinfo
    }

    /// Parses the parameter's JSON: an object with optional `id_token` and `userinfo` objects whose
    /// keys are claim names (each value null or an object). Nil when it is not that shape.
    public init?(json: String) {
        guard json.utf8.count <= 4096, case .object(let top)? = JSONValue(parsing: Data(json.utf8)) else { return nil }
        func names(_ key: String) -> [String]? {
            switch top[key] {
            case nil, .null?: return []
            case .object(let claims)?:
                guard claims.values.allSatisfy({ if case .object = $0 { return true }; return $0 == .null }) else { return nil }
                return claims.keys.sorted()
            default: return nil
            }
        }
        guard let idToken = names("id_token"), let userinfo = names("userinfo") else { return nil }
        self.init(idToken: idToken, userinfo: userinfo)
    }

    /// As stored (JSON), nil for nil.
    public static func encode(_ request: ClaimsRequest?) -> String? {
        request.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    public static func decode(_ stored: String?) -> ClaimsRequest? {
        stored.flatMap { try? JSONDecoder().decode(ClaimsRequest.self, from: Data($0.utf8)) }
    }
}
