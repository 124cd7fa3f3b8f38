import Foundation

/// This server as a WebAuthn relying party: the RP ID passkeys are scoped to and the
/// one origin whose pages may use them. Both come from the issuer URL: the RP ID is
/// its host, the origin its scheme, host and port.
///
/// The verification methods live in extensions: ``verifyRegistration(clientDataJSON:attestationObject:expectedChallenge:requireUserVerification:)``
/// and ``verifyAssertion(clientDataJSON:authenticatorData:signature:credential:expectedChallenge:requireUserVerification:)``.
public struct RelyingParty: Sendable, Hashable {
    /// The RP ID, a domain such as `id.example.com`.
    public let id: String
    /// The exact origin browsers report, such as `https://id.example.com`.
    public let origin: String

    /// The shortest challenge accepted: WebAuthn asks for at least 16 random bytes.
    public static let minimumChallengeLength = 16

    /// Uses an RP ID and origin as given; `origin` is compared byte for byte.
    public init(id: String, origin: String) {
        self.id = id
        self.origin = origin
    }

    /// Derives the RP ID and origin from the issuer URL, e.g.
    /// `https://id.example.com/realms/a` gives RP ID `id.example.com` and origin
    /// `https://id.example.com`. The port is kept only when it is not the scheme's
    /// default, as browsers serialize origins.
    public init(issuer: URL) throws(WebAuthnError) {
        guard let scheme = issuer.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .invalidRelyingParty("the issuer URL must use https (or http for localhost).")
        }
        guard let host = issuer.host?.lowercased(), !host.isEmpty else {
            throw .invalidRelyingParty("the issuer URL has no host.")
        }
        // Browsers refuse IP addresses as RP IDs: passkeys need a domain name.
        if host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw .invalidRelyingParty("the issuer's host is an IP address; passkeys need a domain name (or localhost).")
        }
        var origin = "\(scheme)://\(host)"
        if let port = issuer.port, port != (scheme == "https" ? 443 : 80) {
            origin += ":\(port)"
        }
        self.init(id: host, origin: origin)
    }

    func checkChallenge(_ challenge: [UInt8]) throws(WebAuthnError) {
        guard challenge.count >= Self.minimumChallengeLength else {
            throw .invalidRelyingParty("the expected challenge is \(challenge.count) bytes; at least \(Self.minimumChallengeLength) random bytes are required.")
        }
    }

    /// The checks on authenticator data shared by both ceremonies: RP ID hash,
    /// user presence, and user verification when required.
    func checkAuthenticatorData(_ data: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnError) {
        guard data.matches(rpID: id) else { throw .rpIDHashMismatch(expectedRPID: id) }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if requireUserVerification && !data.flags.contains(.userVerified) { throw .userNotVerified }
    }
}
