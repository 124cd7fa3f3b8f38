import Foundation
import IdentityCore
import OAuthEngine
import OneTimePassword
import StoreContracts

/// Set-up steps that tests take through storage, as the broker itself stores them.
extension BrokerEngine {
    /// Enrols `secret` as `userId`'s authenticator app at the auth service `clientId` selects, as
    /// enrolment stores it (sealed in the vault, bound to the user and the auth service), without
    /// recovery codes. Enrolling through the pages is what the second-step tests do themselves.
    public func enrolTOTP(_ secret: [UInt8], userId: String, clientId: String) async throws {
        guard let client = state.directory.resolve(clientId) else { throw UnexpectedOutcome("no client \(clientId)") }
        let namespace = client.authService.namespace
        let subject = SubjectIdentifier.make(namespace: namespace, userId: userId)
        let sealed = try vault.seal(Data(secret), VaultBindings.totp(subject: subject, namespace: namespace))
        let owner = MFAOwner(subject: subject, namespace: namespace, authServiceId: client.service.id, userId: userId)
        try await storage.mfa.enrolTOTP(TOTPFactor(owner: owner, sealedSecret: sealed, lastStep: 0, createdAt: clock.now()),
                                        recoveryCodeHashes: nil, at: clock.now())
    }

    /// The code an authenticator app holding `secret` shows now (`offset` steps of 30 s away).
    public func totpCode(_ secret: [UInt8], offset: Int64 = 0) -> String {
        let totp = TOTP(secret: secret)
        return totp.code(step: totp.step(at: clock.now()) + offset)
    }

    /// A code of six digits that the app holding `secret` does not show now, nor one step either
    /// side (the steps the broker accepts).
    public func wrongTOTPCode(_ secret: [UInt8]) -> String {
        let accepted = Set((-1...1).map { totpCode(secret, offset: $0) })
        return (0..<4).map { String(repeating: String($0), count: 6) }.first { !accepted.contains($0) }!
    }
}
