import Foundation
import IdentityConfig
import IdentityCore

/// The APIs one client's tokens may be for (docs/api-resources.md, RFC 8707 and RFC 9068): the
/// environment's `apiResources` (its organization's where it declares none of its own for a
/// scope), narrowed to the auth service's `allowedScopes`.
public struct APIResources: Sendable {
    /// Declared resources whose scope the auth service allows, in declaration order.
    public let grantable: [APIResource]
    /// Every declared scope, allowed here or not.
    let declared: Set<String>

    public init(declared: [APIResource], allowedScopes: [String]?) {
        self.declared = Set(declared.map(\.scope))
        grantable = declared.filter { allowedScopes?.contains($0.scope) ?? true }
    }

    /// The scopes the client may ask for beyond the standard ones.
    public var scopes: [String] { grantable.map(\.scope) }

    /// Refuses a request for an API scope that is not declared, or declared but not allowed for
    /// this auth service (`invalid_scope`); other unknown scopes are left to be dropped.
    public func checkRequested(_ requested: String?) throws(OAuthError) {
        for value in (requested ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init) {
            if grantable.contains(where: { $0.scope == value }) { continue }
            if declared.contains(value) {
                throw .invalidScope("The scope \(value) is not available to this app.")
            }
            if value.utf8.contains(UInt8(ascii: ":")) { throw .invalidScope("The scope \(value) is not a declared API scope.") }
        }
    }

    /// The audiences of the API scopes in `scope`, each once, in declaration order.
    public func audiences(granted scope: String) -> [String] {
        var seen: Set<String> = []
        return grantable.filter { Scopes.contains(scope, $0.scope) && seen.insert($0.audience).inserted }.map(\.audience)
    }

    /// Checks `resource` values (RFC 8707) against what `scope` grants and, when given, what an
    /// earlier step narrowed to: each must be one of those audiences, else `invalid_target`.
    /// Returns them without repeats; nil when none were given.
    public func targets(_ resources: [String], granted scope: String, within earlier: [String]? = nil) throws(OAuthError) -> [String]? {
        guard !resources.isEmpty else { return nil }
        let available = earlier ?? audiences(granted: scope)
        var targets: [String] = []
        for resource in resources {
            guard ConfigReader.absoluteURL(resource, schemes: []) != nil, !ConfigReader.hasFragment(resource) else {
                throw .invalidTarget("The resource \(resource) is not an absolute URI without a fragment.")
            }
            guard available.contains(resource) else {
                throw .invalidTarget("A token for \(resource) cannot be issued for this request and scope.")
            }
            if !targets.contains(resource) { targets.append(resource) }
        }
        return targets
    }
}

extension ResolvedClient {
    /// The APIs this client's tokens may be for.
    public var apiResources: APIResources {
        APIResources(declared: entry.apiResources, allowedScopes: service.allowedScopes)
    }
}
