import Foundation
import IdentityCore
import StoreContracts

/// The user's claims in ID tokens and at userinfo (docs/protocol.md, "Tokens"): what the granted
/// scopes ask for — `email` → `email`, `email_verified`; `profile` → `name`,
/// `preferred_username`; `groups` → `groups` — plus what a `claims` request named, and nothing
/// else (docs/security.md, rule 14).
enum UserClaims {
    static func claims(of session: LoginSession, scope: String, requested: [String]) -> [String: JSONValue] {
        func wanted(_ claim: String, scope scopeName: String) -> Bool {
            Scopes.contains(scope, scopeName) || requested.contains(claim)
        }
        var claims: [String: JSONValue] = [:]
        if let email = session.attributes["email"]?.stringValue {
            if wanted("email", scope: "email") { claims["email"] = .string(email) }
            if wanted("email_verified", scope: "email") { claims["email_verified"] = .bool(emailVerified(session)) }
        }
        if wanted("name", scope: "profile"), let name = session.attributes["name"]?.stringValue { claims["name"] = .string(name) }
        if wanted("preferred_username", scope: "profile") { claims["preferred_username"] = .string(session.userId) }
        if wanted("groups", scope: "groups"), let groups = session.groups { claims["groups"] = .array(groups.map { .string($0) }) }
        return claims
    }

    /// Whether the identity source vouches for the address: what the connector said
    /// (`email_verified`: static users from their configuration, OpenID providers from their
    /// ID token), else yes — a directory's or an identity provider's address is the
    /// organisation's own.
    static func emailVerified(_ session: LoginSession) -> Bool {
        switch session.attributes["email_verified"] {
        case .bool(let value)?: value
        case .string(let text)?: text.lowercased() == "true"
        default: true
        }
    }
}
