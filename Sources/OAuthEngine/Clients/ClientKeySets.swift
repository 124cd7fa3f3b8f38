import Foundation
import IdentityCore
import JOSE

/// Fetches the JWK set a client publishes at its `jwksUri` (docs/client-authentication.md). The
/// engine has no HTTP of its own; the application supplies this (bounded in time and size).
public protocol ClientKeyFetching: Sendable {
    /// The body of `url`'s answer when it is a 200; throws otherwise.
    func jwks(at url: URL) async throws -> Data
}

/// The published key sets of `private_key_jwt` clients, cached: a set is used for five minutes,
/// fetched again sooner when an assertion names a `kid` it lacks (key rotation), but never more
/// than once every 30 seconds per URL — forged `kid`s cannot make the broker hammer a client's
/// server — and one fetch serves every request that waits for it. While the set cannot be
/// fetched again, the last one that arrived is used for at most a day; any JWK set that arrives,
/// an empty one too, replaces it (a client that empties its set revokes its keys). Only
/// configured URLs are ever fetched.
actor ClientKeySets {
    static let maximumAge: TimeInterval = 300
    static let minimumRefetchInterval: TimeInterval = 30
    static let maximumStaleness: TimeInterval = 86_400

    private struct Entry {
        var keys: JSONWebKeySet?
        var fetchedAt: Date = .distantPast
        var attemptedAt: Date = .distantPast
        var fetching: Task<JSONWebKeySet, any Error>?
    }

    private let fetcher: (any ClientKeyFetching)?
    private let clock: any BrokerClock
    private var entries: [URL: Entry] = [:]

    init(fetcher: (any ClientKeyFetching)?, clock: any BrokerClock) {
        self.fetcher = fetcher
        self.clock = clock
    }

    /// The keys at `url` that may hold `kid`: `invalid_client` when none could ever be fetched.
    func keys(at url: URL, kid: String?) async throws -> JSONWebKeySet {
        let now = clock.now()
        var entry = entries[url] ?? Entry()
        if let keys = entry.keys, now.timeIntervalSince(entry.fetchedAt) < Self.maximumAge,
           kid.map({ keys.contains(kid: $0) || keys.keys.contains { $0.kid == nil } }) ?? true {
            return keys
        }
        if let fetching = entry.fetching { return try await answer(fetching, fallback: Self.fallback(entry, now: now)) }
        if now.timeIntervalSince(entry.attemptedAt) < Self.minimumRefetchInterval {
            guard let keys = Self.fallback(entry, now: now) else { throw Self.unavailable(url, "fetched less than 30 s ago without success") }
            return keys
        }
        guard let fetcher else { throw Self.unavailable(url, "this broker has no way to fetch it") }
        let fetching = Task { () throws -> JSONWebKeySet in
            let data = try await fetcher.jwks(at: url)
            guard let set = JSONWebKeySet(parsing: data) else {
                throw OAuthError.invalidClient("The client's jwks_uri does not serve a JWK set.")
            }
            return set
        }
        entry.attemptedAt = now
        entry.fetching = fetching
        entries[url] = entry
        return try await answer(fetching, fallback: Self.fallback(entry, now: now))
    }

    /// The last set that arrived, while it is less than a day old.
    private static func fallback(_ entry: Entry, now: Date) -> JSONWebKeySet? {
        now.timeIntervalSince(entry.fetchedAt) < maximumStaleness ? entry.keys : nil
    }

    private func answer(_ fetching: Task<JSONWebKeySet, any Error>, fallback: JSONWebKeySet?) async throws -> JSONWebKeySet {
        let result = await fetching.result
        // The first waiter to resume records the outcome; the others find it recorded.
        for (url, entry) in entries where entry.fetching.map({ $0 == fetching }) ?? false {
            var entry = entry
            entry.fetching = nil
            if case .success(let keys) = result {
                entry.keys = keys
                entry.fetchedAt = clock.now()
            }
            entries[url] = entry
        }
        switch result {
        case .success(let keys): return keys
        case .failure(let error):
            if let fallback { return fallback }
            throw Self.unavailable(nil, "\(error)")
        }
    }

    private static func unavailable(_ url: URL?, _ why: String) -> OAuthError {
        OAuthError.invalidClient("The client's published keys (jwks_uri) could not be fetched.",
                                 debug: "\(url.map { "\($0): " } ?? "")\(why)")
    }
}
