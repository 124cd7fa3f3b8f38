import Foundation
import IdentityCore
import JOSE
import Testing

/// RS256 through OpenSSL 3 (`OpenSSLRSASigner`): the same signature bytes as swift-crypto's, for
/// any input, from any thread at once, and verifiable with the published JWK.
@Suite("JOSE: RS256 signatures through OpenSSL")
struct OpenSSLSigningTests {
    @Test("OpenSSL signs RS256 keys, made here or restored from PEM; ES256 stays swift-crypto's")
    func library() throws {
        let key = try SigningKey.generate(.rs256)
        #expect(key.signingLibrary == "OpenSSL")
        #expect(try SigningKey(kid: "k", algorithm: .rs256, pem: key.pem).signingLibrary == "OpenSSL")
        #expect(key.withoutOpenSSL.signingLibrary == "swift-crypto")
        #expect(try SigningKey.generate(.es256).signingLibrary == "swift-crypto")
    }

    @Test("the same bytes as swift-crypto (PKCS#1 v1.5 is deterministic), and they verify")
    func sameSignatures() throws {
        let key = try SigningKey.generate(.rs256)
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 31, 32, 33, 64, 1_000, 70_000] {
            let input = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let fast = try key.sign(input)
            #expect(fast == (try key.withoutOpenSSL.sign(input)), "length \(length)")
            #expect(fast.count == 256)
            #expect(key.publicKey.verify(fast, over: input, algorithm: .rs256))
            #expect(!key.publicKey.verify(fast, over: input + Data([0]), algorithm: .rs256))
        }
    }

    @Test("eight threads signing at once with one key all get correct signatures")
    func concurrent() async throws {
        let key = try SigningKey.generate(.rs256)
        let reference = key.withoutOpenSSL
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<25 {
                        let input = Data("worker \(worker) round \(round)".utf8)
                        let signature = try key.sign(input)
                        #expect(signature == (try reference.sign(input)))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
