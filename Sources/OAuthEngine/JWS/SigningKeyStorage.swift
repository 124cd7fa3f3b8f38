import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import StoreContracts

/// Where the broker's signing keys live: sealed by the vault in storage, shared by every
/// instance. Loading makes the first key; rotation adds a new active key and keeps the old ones
/// published until every token they signed has expired.
public enum SigningKeyStorage {
    /// Loads the keys from storage, generating and storing an active key of `algorithm` when
    /// there is none (first start, or the configured algorithm changed). Keys of another
    /// algorithm are retired and stay published for `retention` seconds.
    /// `generate` makes the new key (on `blocking`); the default is a fresh random key.
    public static func load(store: any SigningKeyStore, vault: Vault, algorithm: JOSEAlgorithm,
                            clock: any BrokerClock, retention: TimeInterval,
                            blocking: any BlockingWorkRunner,
                            generate: @escaping @Sendable (JOSEAlgorithm) throws -> SigningKey = SigningKey.generate) async throws -> SigningKeyRing {
        let now = clock.now()
        var stored = try await store.signingKeys()
        if !stored.contains(where: { $0.retiredAt == nil && $0.algorithm == algorithm.rawValue }) {
            let generated = try await blocking.run { try generate(algorithm) }
            try await store.insertSigningKey(StoredSigningKey(
                kid: generated.kid, algorithm: algorithm.rawValue,
                sealedPrivateKey: try vault.seal(generated.pem, VaultBindings.signingKey(kid: generated.kid)), createdAt: now))
            stored = try await store.signingKeys()
        }
        for key in stored where key.retiredAt == nil && key.algorithm != algorithm.rawValue {
            try await store.retireSigningKey(kid: key.kid, at: now, removeAfter: now.addingTimeInterval(retention))
        }
        return try build(from: try await store.signingKeys(), vault: vault, algorithm: algorithm, now: now)
    }

    /// Makes a new active key; the previous ones stay in the JWKS for `retention` seconds
    /// (until every token they signed has expired).
    public static func rotate(store: any SigningKeyStore, vault: Vault, algorithm: JOSEAlgorithm,
                              clock: any BrokerClock, retention: TimeInterval,
                              blocking: any BlockingWorkRunner) async throws -> String {
        let now = clock.now()
        let generated = try await blocking.run { try SigningKey.generate(algorithm) }
        try await store.insertSigningKey(StoredSigningKey(
            kid: generated.kid, algorithm: algorithm.rawValue,
            sealedPrivateKey: try vault.seal(generated.pem, VaultBindings.signingKey(kid: generated.kid)), createdAt: now))
        for key in try await store.signingKeys() where key.retiredAt == nil && key.kid != generated.kid {
            try await store.retireSigningKey(kid: key.kid, at: now, removeAfter: now.addingTimeInterval(retention))
        }
        return generated.kid
    }

    /// The ring of the stored keys at `now`: the newest unretired key of `algorithm` signs, every
    /// other key not yet past its removal time is published.
    public static func build(from stored: [StoredSigningKey], vault: Vault, algorithm: JOSEAlgorithm, now: Date) throws -> SigningKeyRing {
        var active: SigningKey?
        var published: [JSONWebKey] = []
        // Newest first, so that concurrent first starts agree on the same active key.
        for key in stored.sorted(by: { ($0.createdAt, $0.kid) > ($1.createdAt, $1.kid) }) {
            if let removeAfter = key.removeAfter, removeAfter < now { continue }
            guard let keyAlgorithm = JOSEAlgorithm(rawValue: key.algorithm), SigningKey.signingAlgorithms.contains(keyAlgorithm) else { continue }
            let pem = try vault.openString(key.sealedPrivateKey, VaultBindings.signingKey(kid: key.kid))
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
}

extension SigningAlgorithm {
    /// The JOSE algorithm of `signing.algorithm`.
    public var jose: JOSEAlgorithm {
        switch self {
        case .rs256: .rs256
        case .es256: .es256
        }
    }
}
