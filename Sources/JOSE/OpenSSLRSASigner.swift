import COpenSSL
import Crypto
import Foundation
import Synchronization

/// RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3) made by OpenSSL 3's
/// libcrypto instead of the BoringSSL inside swift-crypto.
///
/// The RSA private operation is the token endpoint's ceiling. On the x86-64 CPUs the broker runs
/// on, OpenSSL 3 uses its AVX-512 (IFMA) and ADX code for RSA-2048 and signs about twice as fast
/// (`idconnect bench signing` prints both). PKCS#1 v1.5 signatures are deterministic, so both
/// libraries make the same bytes for the same key and input (`OpenSSLSigningTests`).
///
/// Thread safety: one `EVP_PKEY` is shared read-only by every signing thread, which OpenSSL 3
/// allows; each signature uses a signing context of its own, taken from a small pool of
/// initialised ones and put back afterwards (setting one up costs a provider lookup).
final class OpenSSLRSASigner: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The key (`EVP_PKEY *`), never modified after `init`.
    private let key: OpaquePointer
    /// A signing context (`EVP_PKEY_CTX *`) ready for `EVP_PKEY_sign`; used by one thread at a time.
    private struct Context: @unchecked Sendable { let pointer: OpaquePointer }
    private let idle = Mutex<[Context]>([])
    /// The signature length: the modulus size in bytes.
    let signatureSize: Int

    /// Loads an RSA private key from its PEM (PKCS#8 or PKCS#1); nil when OpenSSL cannot read it
    /// as an RSA key (the caller then signs with swift-crypto).
    init?(pem: String) {
        let loaded: OpaquePointer? = pem.utf8CString.withUnsafeBufferPointer { text in
            guard let bio = BIO_new_mem_buf(text.baseAddress, Int32(text.count - 1)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let loaded else {
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_is_a(loaded, "RSA") == 1, EVP_PKEY_get_size(loaded) >= 256 else {
            EVP_PKEY_free(loaded)
            return nil
        }
        key = loaded
        signatureSize = Int(EVP_PKEY_get_size(loaded))
    }

    deinit {
        for context in idle.withLock({ $0 }) { EVP_PKEY_CTX_free(context.pointer) }
        EVP_PKEY_free(key)
    }

    /// The RS256 signature of `data`.
    func sign(_ data: Data) throws -> Data {
        let digest = SHA256.hash(data: data)
        let context = try takeContext()
        var signature = Data(count: signatureSize)
        var length = signatureSize
        let status = digest.withUnsafeBytes { digestBytes in
            signature.withUnsafeMutableBytes { output in
                EVP_PKEY_sign(context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                              digestBytes.bindMemory(to: UInt8.self).baseAddress, digestBytes.count)
            }
        }
        guard status == 1, length == signatureSize else {
            EVP_PKEY_CTX_free(context)
            throw Self.failure("EVP_PKEY_sign")
        }
        idle.withLock { $0.append(Context(pointer: context)) }
        return signature
    }

    /// An initialised signing context: an idle one, or a new one.
    private func takeContext() throws -> OpaquePointer {
        if let context = idle.withLock({ $0.popLast() }) { return context.pointer }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw Self.failure("EVP_PKEY_CTX_new") }
        guard EVP_PKEY_sign_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
              EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw Self.failure("EVP_PKEY_sign_init")
        }
        return context
    }

    /// The failure with OpenSSL's reason, its error queue emptied.
    private static func failure(_ operation: String) -> Failure {
        let code = ERR_get_error()
        ERR_clear_error()
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Failure(description: "\(operation) failed: \(reason)")
    }
}
