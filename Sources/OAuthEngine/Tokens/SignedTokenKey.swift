/// The key of a signed token in the verified-token memo (``TokenVerifier/verified``): equal by the
/// token's whole text, hashed by its length and its last 32 bytes (the end of the signature).
///
/// Hashing the whole token (about 800 bytes for an access token) under the memo's lock would be
/// paid by every validation and introspection. Only tokens whose signature checked out are stored, and the end of
/// a signature is unpredictable without the signing key, so stored keys spread over the buckets
/// and no caller can crowd one; a token that merely ends like a stored one is still compared in
/// full and misses.
struct SignedTokenKey: Hashable, Sendable {
    let token: String

    static let hashedSuffixLength = 32

    static func == (lhs: SignedTokenKey, rhs: SignedTokenKey) -> Bool { lhs.token == rhs.token }

    func hash(into hasher: inout Hasher) {
        let utf8 = token.utf8
        hasher.combine(utf8.count)
        let hashed = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(Self.hashedSuffixLength))))
        }
        if hashed == nil {  // a bridged or foreign string: the same bytes, one by one
            for byte in utf8.suffix(Self.hashedSuffixLength) { hasher.combine(byte) }
        }
    }
}
