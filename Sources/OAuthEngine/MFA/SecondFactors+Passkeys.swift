import Foundation
import IdentityCore
import StoreContracts
import WebAuthn

/// What the page's script posts after a passkey ceremony: the form token, the challenge it
/// answered (as issued, base64url) and the browser's credential JSON.
public struct PasskeyPost<Credential: Decodable & Sendable>: Decodable, Sendable {
    public var csrf_token: String
    public var challenge: String
    public var credential: Credential
    /// A label for a new passkey (registration only).
    public var name: String?
}

/// Passkeys (WebAuthn Level 2, docs/mfa.md): registration and assertion options, and checking
/// the answers. Challenges are single use and bound to the pending authorization of the browser
/// that asked: each is a one-time grant under the hash of that authorization's id and the
/// challenge, taken (removed) when an answer arrives, whatever the outcome.
extension SecondFactors {
    /// The broker as a relying party: RP ID = the issuer's host, origin = the issuer's origin.
    /// Nil when the issuer's host is an IP address (browsers refuse those as RP IDs).
    var relyingParty: RelyingParty? {
        guard let url = URL(string: context.issuer) else { return nil }
        return try? RelyingParty(issuer: url)
    }

    static let challengeLifetime: TimeInterval = 300

    /// A fresh challenge for the pending authorization whose id hashes to `pendingIdHash`.
    func newChallenge(pendingIdHash: String) async throws -> [UInt8] {
        let challenge = Array(Secrets.randomBytes(32))
        let key = Self.challengeKey(Base64URL.encode(challenge), pendingIdHash: pendingIdHash)
        try await grantStore.insertOneTimeGrant(hash: key, sealed: Data(), expiresAt: context.clock.now().addingTimeInterval(Self.challengeLifetime))
        return challenge
    }

    /// Takes the challenge an answer names; nil when it was not issued for this authorization,
    /// was used already, or expired.
    func takeChallenge(_ encoded: String, pendingIdHash: String) async throws -> [UInt8]? {
        guard encoded.utf8.count <= 128, let challenge = Base64URL.decode(encoded) else { return nil }
        let key = Self.challengeKey(encoded, pendingIdHash: pendingIdHash)
        guard let taken = try await grantStore.takeOneTimeGrant(hash: key),
              context.clock.now() < taken.expiresAt else { return nil }
        return Array(challenge)
    }

    static func challengeKey(_ encoded: String, pendingIdHash: String) -> String {
        Secrets.hash("webauthn\u{0}\(pendingIdHash)\u{0}\(encoded)")
    }

    /// `navigator.credentials.get` options for the user's passkeys, as JSON.
    func assertionOptions(_ enrolment: MFAEnrolment, challenge: [UInt8]) -> String? {
        guard let party = relyingParty else { return nil }
        let ids = enrolment.passkeys.compactMap { Base64URL.decode($0.credentialId).map(Array.init) }
        return Self.json(PasskeyRequestOptions(relyingParty: party, challenge: challenge, allowCredentialIDs: ids))
    }

    /// `navigator.credentials.create` options for a new passkey of `owner`, as JSON.
    func registrationOptions(_ owner: MFAOwner, username: String, existing: MFAEnrolment?, challenge: [UInt8],
                             client: ResolvedClient) -> String? {
        guard let party = relyingParty else { return nil }
        // The user handle is opaque and stable: the subject, never the username.
        let handle = Array(owner.subject.utf8.prefix(64))
        let exclude = (existing?.passkeys ?? []).compactMap { Base64URL.decode($0.credentialId).map(Array.init) }
        return Self.json(PasskeyCreationOptions(relyingParty: party, relyingPartyName: client.service.mfaIssuerName, userID: handle,
                                                userName: username, userDisplayName: username, challenge: challenge,
                                                excludeCredentialIDs: exclude))
    }

    /// Checks a sign-in with a passkey of the user behind `enrolment`, as one attempt in the login
    /// throttle. Success: `hwk`.
    func verifyAssertion(_ post: PasskeyPost<PasskeyAssertionResponse>, enrolment: MFAEnrolment, pendingIdHash: String,
                         client: ResolvedClient, address: String?) async throws -> Result<String, OAuthError> {
        try await throttled(enrolment.owner, client, address, method: "webauthn") {
            try await checkAssertion(post, enrolment: enrolment, pendingIdHash: pendingIdHash, client: client, address: address)
        }
    }

    /// `verifyAssertion` once the attempt holds its place in the throttle.
    private func checkAssertion(_ post: PasskeyPost<PasskeyAssertionResponse>, enrolment: MFAEnrolment, pendingIdHash: String,
                                client: ResolvedClient, address: String?) async throws -> Result<String, OAuthError> {
        let owner = enrolment.owner
        guard let party = relyingParty,
              let challenge = try await takeChallenge(post.challenge, pendingIdHash: pendingIdHash) else {
            return refuse(owner, client, address, "passkey_refused", .accessDenied(
                "This passkey request has expired or was used already. Try again."), method: "webauthn")
        }
        let credentialId = Base64URL.encode(post.credential.credentialID)
        guard let stored = enrolment.passkeys.first(where: { $0.credentialId == credentialId }) else {
            return refuse(owner, client, address, "unknown_passkey", .accessDenied(
                "This passkey is not registered for your account here."), method: "webauthn")
        }
        let answer = post.credential
        let verified: VerifiedAssertion
        do throws(WebAuthnError) {
            verified = try party.verifyAssertion(
                clientDataJSON: answer.clientDataJSON, authenticatorData: answer.authenticatorData, signature: answer.signature,
                credential: StoredCredential(publicKey: Array(stored.publicKey), signCount: UInt32(clamping: stored.signCount)),
                expectedChallenge: challenge, requireUserVerification: false)
        } catch .counterDidNotIncrease(let storedCount, let received) {
            context.audit.record(AuditEvent(.mfaCounterAnomaly, [
                "auth_service": client.service.id, "client": client.clientId, "user": owner.userId, "address": address,
                "credential": String(credentialId.prefix(16)), "stored": String(storedCount), "received": String(received)]))
            return refuse(owner, client, address, "counter", .accessDenied(
                "This passkey's signature counter went backwards, which happens when an authenticator was copied. "
                    + "The sign-in was refused; contact your administrator."), method: "webauthn")
        } catch {
            return refuse(owner, client, address, "passkey_refused", .accessDenied(error.description), method: "webauthn")
        }
        guard try await mfaStore.updatePasskeyCounter(credentialId: credentialId, from: stored.signCount, to: Int64(verified.signCount),
                                             at: context.clock.now()) else {
            return refuse(owner, client, address, "replayed", .accessDenied("This passkey was just used. Try again."), method: "webauthn")
        }
        return .success("hwk")
    }

    /// Registers a new passkey for `owner` (with ten recovery codes when it is the user's first
    /// factor). Success: the recovery codes to show once.
    func register(_ post: PasskeyPost<PasskeyRegistrationResponse>, owner: MFAOwner, existing: MFAEnrolment?,
                  pendingIdHash: String, client: ResolvedClient, address: String?) async throws -> Result<[String], OAuthError> {
        guard let party = relyingParty,
              let challenge = try await takeChallenge(post.challenge, pendingIdHash: pendingIdHash) else {
            return refuse(owner, client, address, "passkey_refused", .accessDenied(
                "This passkey request has expired or was used already. Try again."), method: "webauthn")
        }
        let registered: RegisteredCredential
        do throws(WebAuthnError) {
            registered = try party.verifyRegistration(clientDataJSON: post.credential.clientDataJSON,
                                                      attestationObject: post.credential.attestationObject,
                                                      expectedChallenge: challenge, requireUserVerification: false)
        } catch {
            return refuse(owner, client, address, "passkey_refused", .accessDenied(error.description), method: "webauthn")
        }
        let now = context.clock.now()
        let name = String((post.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(64))
        let credential = PasskeyCredential(
            credentialId: Base64URL.encode(registered.credentialID), owner: owner, name: name.isEmpty ? "Passkey" : name,
            publicKey: Data(registered.publicKey), signCount: Int64(registered.signCount),
            transports: post.credential.transports.filter { $0.utf8.count <= 32 }.prefix(8).map { $0 }, createdAt: now)
        let codes = (existing?.recoveryCodesLeft ?? 0) == 0 ? RecoveryCodes.generate() : []
        let stored = try await mfaStore.enrolPasskey(credential, recoveryCodeHashes: codes.isEmpty ? nil : RecoveryCodes.hashes(codes, subject: owner.subject),
                                     at: now)
        guard stored else {
            return refuse(owner, client, address, "passkey_refused", .accessDenied("This passkey is registered already."), method: "webauthn")
        }
        enrolled(owner, client, address, method: "webauthn")
        return .success(codes)
    }

    static func json(_ value: some Encodable) -> String? {
        (try? JSONEncoder.sortedCompact.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}
