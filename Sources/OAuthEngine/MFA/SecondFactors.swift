import Foundation
import IdentityConfig
import IdentityCore
import OneTimePassword
import StoreContracts

/// What a sign-in still needs after its first factor (docs/mfa.md).
public enum SecondFactorNeed: Sendable, Equatable {
    /// Nothing: `mfa.mode` is off, the sign-in already proved `mfa`, or (optional) no factor.
    case none
    /// A code or passkey of one of the user's factors.
    case verify(MFAEnrolment)
    /// `mfa.mode: required` and no usable factor: enrol one first.
    case enrol(MFAEnrolment?)
}

/// Second factors (docs/mfa.md): who needs one, checking codes (authenticator app and recovery
/// codes, counted in the login throttle), and enrolling an authenticator app. Passkeys are in
/// `SecondFactors+Passkeys.swift`.
struct SecondFactors: Sendable {
    let context: EngineContext
    let mfaStore: any MFAStore
    let grantStore: any OneTimeGrantStore
    let throttleStore: any ThrottleStore
    let throttle: LoginThrottle

    /// Longer input is refused before any bookkeeping.
    static let maxCodeBytes = 64

    static func owner(userId: String, client: ResolvedClient) -> MFAOwner {
        let namespace = client.authService.namespace
        return MFAOwner(subject: SubjectIdentifier.make(namespace: namespace, userId: userId), namespace: namespace,
                        authServiceId: client.service.id, userId: userId)
    }

    /// Whether the user behind `owner` must prove (or enrol) a second factor now.
    func need(_ owner: MFAOwner, client: ResolvedClient, amr: [String], stepUp: StepUp? = nil) async throws -> SecondFactorNeed {
        let settings = client.service.mfa
        guard settings.mode != .off, !amr.contains("mfa") else { return .none }
        let enrolment = try await mfaStore.mfaEnrolment(subject: owner.subject)
        if let usable = enrolment.map({ usable($0, settings: settings) }), usable.hasFactor { return .verify(usable) }
        // Asked for by the authorization (`acr_values`, an essential `acr`): as if required.
        return settings.mode == .required || stepUp != nil ? .enrol(enrolment) : .none
    }

    /// The factors of `enrolment` that the auth service still allows (and passkeys only while the
    /// issuer can be a WebAuthn relying party).
    func usable(_ enrolment: MFAEnrolment, settings: MFASettings) -> MFAEnrolment {
        var usable = enrolment
        if !settings.methods.contains(.totp) { usable.totp = nil }
        if !settings.methods.contains(.webauthn) || relyingParty == nil { usable.passkeys = [] }
        return usable
    }

    /// Checks an authenticator-app or recovery code typed by the user behind `enrolment`, as one
    /// attempt in the login throttle. Success is the `amr` value to add (`otp`); a refusal is the
    /// error to show, in words.
    func verifyCode(_ input: String, enrolment: MFAEnrolment, client: ResolvedClient,
                    address: String?) async throws -> Result<String, OAuthError> {
        let owner = enrolment.owner
        guard input.utf8.count <= Self.maxCodeBytes else {
            return refuse(owner, client, address, "malformed", .accessDenied("The code is too long."))
        }
        return try await throttled(owner, client, address) {
            try await checkCode(input, enrolment: enrolment, client: client, address: address)
        }
    }

    /// `verifyCode` once the attempt holds its place in the throttle. A TOTP code is accepted for
    /// the current time step or one either side (RFC 6238 §5.2), each step once per user.
    private func checkCode(_ input: String, enrolment: MFAEnrolment, client: ResolvedClient,
                           address: String?) async throws -> Result<String, OAuthError> {
        let owner = enrolment.owner
        let digits = input.filter { $0 != " " }
        if let factor = enrolment.totp, digits.utf8.count == 6, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            let secret = try openSecret(factor)
            guard let step = TOTP(secret: secret).matchingStep(digits, at: context.clock.now()) else {
                return refuse(owner, client, address, "wrong_code", .accessDenied(Self.wrongCodeMessage))
            }
            guard try await mfaStore.acceptTOTPStep(subject: owner.subject, step: step, at: context.clock.now()) else {
                return refuse(owner, client, address, "replayed",
                              .accessDenied("This code was used already. Wait for the next code in your authenticator app."))
            }
            return .success("otp")
        }
        guard let normalized = RecoveryCodes.normalize(input) else {
            let expected = enrolment.totp == nil ? "Enter one of your recovery codes."
                : "Enter the 6-digit code from your authenticator app, or one of your recovery codes."
            return refuse(owner, client, address, "malformed", .accessDenied(expected))
        }
        let hash = RecoveryCodes.hash(normalized, subject: owner.subject)
        guard try await mfaStore.useRecoveryCode(subject: owner.subject, hash: hash) else {
            return refuse(owner, client, address, "wrong_code", .accessDenied(
                "This recovery code is not correct, or it was used already. Each recovery code works once."))
        }
        context.audit.record(AuditEvent(.mfaRecoveryCodeUsed, [
            "auth_service": client.service.id, "client": client.clientId, "user": owner.userId, "address": address,
            "left": String(max(0, enrolment.recoveryCodesLeft - 1))]))
        return .success("otp")
    }

    static let wrongCodeMessage = "The code is not correct. Check that your phone's clock is right, then enter the current code."

    /// Records a failed attempt and hands back the error.
    func refuse<T>(_ owner: MFAOwner, _ client: ResolvedClient, _ address: String?, _ reason: String,
                   _ error: OAuthError, method: String = "otp") -> Result<T, OAuthError> {
        context.audit.record(AuditEvent(.mfaFailed, [
            "auth_service": client.service.id, "client": client.clientId, "user": owner.userId, "address": address,
            "method": method, "reason": reason]))
        return .failure(error)
    }

    func openSecret(_ factor: TOTPFactor) throws -> [UInt8] {
        let binding = VaultBindings.totp(subject: factor.owner.subject, namespace: factor.owner.namespace)
        return Array(try context.vault.open(factor.sealedSecret, binding))
    }

    /// The `otpauth://` URI an authenticator app scans for `secret`.
    func otpauthURI(secret: [UInt8], owner: MFAOwner, username: String, client: ResolvedClient) -> String {
        OTPAuthURI.totp(issuer: client.service.mfaIssuerName, account: username, secret: secret)
    }

    /// Confirms an authenticator app being enrolled with a code from it, and stores it (with ten
    /// recovery codes when it is the user's first factor) in one write. Success: the recovery
    /// codes to show once (empty when the user had some already).
    func confirmTOTP(secret: [UInt8], code: String, owner: MFAOwner, existing: MFAEnrolment?, client: ResolvedClient,
                     address: String?) async throws -> Result<[String], OAuthError> {
        guard code.utf8.count <= Self.maxCodeBytes else { return refuse(owner, client, address, "malformed", .accessDenied("The code is too long.")) }
        return try await throttled(owner, client, address) {
            let digits = code.filter { $0 != " " }
            guard let step = TOTP(secret: secret).matchingStep(digits, at: context.clock.now()) else {
                return refuse(owner, client, address, "wrong_code", .accessDenied(
                    "The code does not match. Scan the QR code (or type the key) into your authenticator app, then enter the code it shows."))
            }
            let now = context.clock.now()
            let sealed = try context.vault.seal(Data(secret), VaultBindings.totp(subject: owner.subject, namespace: owner.namespace))
            let codes = (existing?.recoveryCodesLeft ?? 0) == 0 ? RecoveryCodes.generate() : []
            try await mfaStore.enrolTOTP(TOTPFactor(owner: owner, sealedSecret: sealed, lastStep: step, createdAt: now, lastUsedAt: now),
                                      recoveryCodeHashes: codes.isEmpty ? nil : RecoveryCodes.hashes(codes, subject: owner.subject), at: now)
            enrolled(owner, client, address, method: "totp")
            return .success(codes)
        }
    }

    func enrolled(_ owner: MFAOwner, _ client: ResolvedClient, _ address: String?, method: String) {
        context.audit.record(AuditEvent(.mfaEnrolled, [
            "auth_service": client.service.id, "client": client.clientId, "user": owner.userId, "address": address, "method": method]))
    }
}

extension LoginThrottle {
    /// The counters of a second-factor attempt: the user within its auth service, and the address.
    public static func secondFactorKeys(namespace: String, userId: String, address: String?) -> Keys {
        Keys(username: Secrets.hash("mfa\u{0}\(namespace)\u{0}\(userId)"),
             address: address.map { Secrets.hash("addr\u{0}" + ClientAddress.throttleKey($0)) })
    }
}
