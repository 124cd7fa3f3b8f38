import Foundation
import IdentityCore

/// What a connector said about a person, kept sealed in a pending authorization while the
/// sign-in waits for the person (the second step, the consent screen): it may hold an upstream
/// token, so it never rests in storage unsealed.
struct HeldIdentity: Codable {
    var userId: String
    var attributes: [String: JSONValue]
    var upstream: UpstreamToken?
    var sessionEndsAt: Date?

    /// `identity` sealed under `binding` (a purpose bound to the pending authorization's id hash).
    static func seal(_ identity: ConnectorIdentity, vault: Vault, binding: Vault.Binding) throws -> Data {
        let held = HeldIdentity(userId: identity.userId, attributes: identity.attributes, upstream: identity.upstream,
                                sessionEndsAt: identity.sessionEndsAt)
        return try vault.seal(try JSONEncoder.sortedCompact.encode(held), binding)
    }

    /// The identity `seal` kept.
    static func open(_ sealed: Data, vault: Vault, binding: Vault.Binding) throws -> ConnectorIdentity {
        let held = try JSONDecoder().decode(HeldIdentity.self, from: try vault.open(sealed, binding))
        return ConnectorIdentity(userId: held.userId, attributes: held.attributes, upstream: held.upstream,
                                 sessionEndsAt: held.sessionEndsAt)
    }
}
