import Foundation
import IdentityCore
import Synchronization

/// A JSON document served as the same bytes to every caller, with a strong `ETag` so clients and
/// caches can ask `If-None-Match` and get 304 (discovery and JWKS: read on every client start,
/// changed only by a reload or a key rotation).
public struct CachedDocument: Sendable {
    public let bytes: Data
    /// A strong entity tag: the first 128 bits of the bytes' SHA-256, quoted.
    public let etag: String

    public init(bytes: Data) {
        self.bytes = bytes
        etag = "\"" + String(Secrets.hash(String(decoding: bytes, as: UTF8.self)).prefix(22)) + "\""
    }

    /// Whether an `If-None-Match` header names this version (a list of tags, weak ones compared
    /// weakly as RFC 9110 §13.1.2 says for this header, or `*`).
    public func matches(ifNoneMatch header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { tag in
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }
}

/// Builds a ``CachedDocument`` once per state: every swap of the live state (reload, key rotation)
/// drops it, and a document built from a state that was swapped away meanwhile is not kept.
final class DocumentCache: Sendable {
    private struct Entry { var generation = 0; var document: CachedDocument? }
    private let entry = Mutex(Entry())

    init(live: LiveState) {
        live.onChange { [weak self] _ in
            self?.entry.withLock { $0.generation += 1; $0.document = nil }
        }
    }

    func document(_ make: () -> Data) -> CachedDocument {
        let (generation, cached) = entry.withLock { ($0.generation, $0.document) }
        if let cached { return cached }
        let made = CachedDocument(bytes: make())
        entry.withLock { if $0.generation == generation { $0.document = made } }
        return made
    }
}
