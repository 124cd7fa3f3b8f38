import Foundation
import IdentityCore
import StoreContracts

/// The broker's signing keys: one active key that signs, every published key that verifies,
/// and the JWKS document built from them. Immutable; key rotation builds a new ring.
public final class SigningKeyRing: Sendable {
    public let active: SigningKey
    public let verificationKeys: [String: VerificationKey]
    /// `/.well-known/jwks.json`, serialized once.
    public let jwksDocument: Data

    init(active: SigningKey, published: [VerificationKey]) {
        self.active = active
        var byKid: [String: VerificationKey] = [:]
        for key in published { byKid[key.kid] = key }
        byKid[active.kid] = active.publicKey
        verificationKeys = byKid
        let keys = [active.publicKey] + published.filter { $0.kid != active.kid }
        let document = ["keys": keys.map(\.jwk)]
        jwksDocument = (try? JSONEncoder.sortedCompact.encode(document)) ?? Data(#"{"keys":[]}"#.utf8)
    }

    public static func binding(kid: String) -> Vault.Binding { .init(purpose: "signing-key", owner: kid) }

    /// Loads the keys from storage, generating and storing an active key of `algorithm` when
    /// there is none (first start, or the configured algorithm changed). Keys of another
    /// algorithm are retired and stay published for `retention` seconds.
    /// `generate` makes the new key (on `blocking`); the default is a fresh random key.
    public static func load(store: any SigningKeyStore, vault: Vault, algorithm: JWSAlgorithm,
                            clock: any BrokerClock, retention: TimeInterval,
                            blocking: any BlockingWorkRunner,
                            generate: @escaping @Sendable (JWSAlgorithm) throws -> SigningKey = SigningKey.generate) async throws -> SigningKeyRing {
        let now = clock.now()
        var stored = try await store.signingKeys()
        if !stored.contains(where: { $0.retiredAt == nil && $0.algorithm == algorithm.rawValue }) {
            let generated = try await blocking.run { try generate(algorithm) }
            try await store.insertSigningKey(StoredSigningKey(
                kid: generated.kid, algorithm: algorithm.rawValue,
                sealedPrivateKey: try vault.seal(generated.pem, binding(kid: generated.kid)), createdAt: now))
            stored = try await store.signingKeys()
        }
        for key in stored where key.retiredAt == nil && key.algorithm != algorithm.rawValue {
            try await store.retireSigningKey(kid: key.kid, at: now, removeAfter: now.addingTimeInterval(retention))
        }
        return try build(from: try await store.signingKeys(), vault: vault, algorithm: algorithm, now: now)
    }

    /// Makes a new active key; the previous ones stay in the JWKS for `retention` seconds
    /// (until every token they signed has expired).
    public static func rotate(store: any SigningKeyStore, vault: Vault, algorithm: JWSAlgorithm,
                              clock: any BrokerClock, retention: TimeInterval,
                              blocking: any BlockingWorkRunner) async throws -> String {
        let now = clock.now()
        let generated = try await blocking.run { try SigningKey.generate(algorithm) }
        try await store.insertSigningKey(StoredSigningKey(
            kid: generated.kid, algorithm: algorithm.rawValue,
            sealedPrivateKey: try vault.seal(generated.pem, binding(kid: generated.kid)), createdAt: now))
        for key in try await store.signingKeys() where key.retiredAt == nil && key.kid != generated.kid {
            try await store.retireSigningKey(kid: key.kid, at: now, removeAfter: now.addingTimeInterval(retention))
        }
        return generated.kid
    }

    static func build(from stored: [StoredSigningKey], vault: Vault, algorithm: JWSAlgorithm, now: Date) throws -> SigningKeyRing {
        var active: SigningKey?
        var published: [VerificationKey] = []
        // Newest first, so that concurrent first starts agree on the same active key.
        for key in stored.sorted(by: { ($0.createdAt, $0.kid) > ($1.createdAt, $1.kid) }) {
            if let removeAfter = key.removeAfter, removeAfter < now { continue }
            guard let keyAlgorithm = JWSAlgorithm(rawValue: key.algorithm) else { continue }
            let pem = try vault.openString(key.sealedPrivateKey, binding(kid: key.kid))
            let signingKey = try SigningKey(kid: key.kid, algorithm: keyAlgorithm, pem: pem)
            if active == nil && key.retiredAt == nil && keyAlgorithm == algorithm {
                active = signingKey
            } else {
                published.append(signingKey.publicKey)
            }
        }
        guard let active else { throw SigningKeyError.noActiveKey }
        return SigningKeyRing(active: active, published: published)
    }

    /// The kids of the stored keys still published at `now` (retired ones until their removal time).
    public static func liveKids(_ stored: [StoredSigningKey], at now: Date) -> Set<String> {
        Set(stored.filter { $0.removeAfter.map { $0 > now } ?? true }.map(\.kid))
    }

    public func sign(_ payload: Data, type: String) throws -> String {
        try CompactJWS.sign(payload: payload, type: type, key: active)
    }

    /// Verifies a token signed by one of the published keys. The header's `alg` must be the
    /// key's own algorithm (no `none`, no algorithm confusion) and `typ` must match when given.
    public func verify(_ token: String, type expectedType: String?) -> CompactJWS.Parts? {
        guard let parts = CompactJWS.decode(token), let kid = parts.keyId, let key = verificationKeys[kid],
              parts.algorithm == key.algorithm.rawValue else { return nil }
        if let expectedType, parts.type?.lowercased() != expectedType.lowercased() { return nil }
        return key.verify(parts.signature, for: parts.signingInput) ? parts : nil
    }
}

public enum SigningKeyError: Error, CustomStringConvertible {
    case noActiveKey
    public var description: String { "no active signing key could be loaded" }
}
