import Foundation
import IdentityCore
import JOSE
import OAuthEngine
import Synchronization

/// First signing keys for the suite's brokers. About a hundred brokers start in one test process;
/// each generating its own RSA-2048 key cost ~0.3 s of CPU in a debug build (~30 s in all), on
/// the blocking pool that password checks also wait on — on a starved machine other tests'
/// requests queued behind them past their read timeout. The RSA material is made once per
/// process and reused under a fresh kid per broker (each broker has storage of its own); ES256
/// keys are cheap and made fresh. Key rotation (`keys rotate`, housekeeping) still generates.
/// ``EngineFixture`` makes its engines' keys with it too.
public enum TestSigningKeys {
    private static let rsaPEM = Mutex<String?>(nil)

    @Sendable public static func make(_ algorithm: JOSEAlgorithm) throws -> SigningKey {
        guard algorithm == .rs256 else { return try SigningKey.generate(algorithm) }
        let pem = try rsaPEM.withLock { cached -> String in
            if let cached { return cached }
            let generated = try SigningKey.generate(.rs256).pem
            cached = generated
            return generated
        }
        return try SigningKey(kid: Secrets.randomToken(bytes: 12), algorithm: .rs256, pem: pem)
    }
}
