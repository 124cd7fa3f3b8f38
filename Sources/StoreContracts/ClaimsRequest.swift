import Foundation
import IdentityCore

/// The OIDC `claims` request parameter (OIDC Core 5.5), reduced to what the broker acts on:
/// the claim names asked for in the ID token and at userinfo, and the classes an essential `acr`
/// in the ID token names (OIDC Core 5.5.1.1: the sign-in must reach one of them). Other values and
/// `essential` flags do not change what the broker can say, so they are not kept.
public struct ClaimsRequest: Codable, Sendable, Equatable {
    public var idToken: [String]
    public var userinfo: [String]
    /// `{"id_token": {"acr": {"essential": true, "value" | "values": …}}}`: the classes named; nil
    /// when `acr` is not asked for as essential with values.
    public var essentialACR: [String]?

    public init(idToken: [String] = [], userinfo: [String] = [], essentialACR: [String]? = nil) {
        self.idToken = idToken
        self.userinfo = userinfo
        self.essentialACR = essentialACR
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
        self.init(idToken: idToken, userinfo: userinfo, essentialACR: Self.essentialACR(top["id_token"]))
    }

    private static func essentialACR(_ idToken: JSONValue?) -> [String]? {
        guard case .object(let claims)? = idToken, case .object(let acr)? = claims["acr"], acr["essential"] == .bool(true) else {
            return nil
        }
        switch (acr["value"], acr["values"]) {
        case (.string(let value)?, _): return [value]
        case (_, .array(let values)?):
            let names = values.compactMap { value -> String? in if case .string(let name) = value { return name }; return nil }
            return names.isEmpty ? nil : names
        default: return nil
        }
    }

    /// As stored (JSON), nil for nil.
    public static func encode(_ request: ClaimsRequest?) -> String? {
        request.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    public static func decode(_ stored: String?) -> ClaimsRequest? {
        stored.flatMap { try? JSONDecoder().decode(ClaimsRequest.self, from: Data($0.utf8)) }
    }
}
