import Foundation
import IdentityCore

/// The broker's signing keys: one active key that signs, every published key that verifies,
/// and the JWKS document built from them. Immutable; key rotation builds a new ring (where the
/// keys come from and how they rotate is the engine's `SigningKeyStorage`).
public final class SigningKeyRing: Sendable {
    public let active: SigningKey
    public let verificationKeys: [String: JSONWebKey]
    /// `/.well-known/jwks.json`, serialized once.
    public let jwksDocument: Data

    public init(active: SigningKey, published: [JSONWebKey]) {
        self.active = active
        var byKid: [String: JSONWebKey] = [:]
        for key in published { if let kid = key.kid { byKid[kid] = key } }
        byKid[active.kid] = active.publicKey
        verificationKeys = byKid
        let keys = [active.publicKey] + published.filter { $0.kid != active.kid }
        let document = ["keys": keys.map(\.publicFields)]
        jwksDocument = (try? JSONEncoder.sortedCompact.encode(document)) ?? Data(#"{"keys":[]}"#.utf8)
    }

    public func sign(_ payload: Data, type: String) throws -> String {
        try CompactJWS.sign(payload: payload, type: type, key: active)
    }
}

public enum SigningKeyError: Error, CustomStringConvertible {
    case noActiveKey
    public var description: String { "no active signing key could be loaded" }
}
