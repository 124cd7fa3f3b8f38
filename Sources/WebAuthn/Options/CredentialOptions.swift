/// How strongly a ceremony asks the authenticator to verify the user.
public enum UserVerificationRequirement: String, Sendable, Hashable, Encodable {
    case required, preferred, discouraged
}

/// The options for `navigator.credentials.create`, as the JSON that
/// `registerPasskey(options)` in `passkeys.js` reads (binary fields base64url).
///
/// The product contract is fixed here: attestation `none`, resident key
/// `preferred`, algorithms ES256 then RS256, RP ID from ``RelyingParty``.
public struct PasskeyCreationOptions: Sendable, Encodable {
    public let challenge: String
    public let rp: RP
    public let user: User
    public let pubKeyCredParams: [Parameter]
    public let timeout: Int
    public let attestation: String
    public let authenticatorSelection: Selection
    public let excludeCredentials: [CredentialDescriptor]

    public struct RP: Sendable, Encodable { public let id: String; public let name: String }
    public struct User: Sendable, Encodable { public let id: String; public let name: String; public let displayName: String }
    public struct Parameter: Sendable, Encodable { public let type: String; public let alg: Int }
    public struct Selection: Sendable, Encodable {
        public let residentKey: String
        public let requireResidentKey: Bool
        public let userVerification: UserVerificationRequirement
    }

    /// - Parameters:
    ///   - userID: an opaque, stable handle for the account (not an e-mail address:
    ///     authenticators may show or sync it); at most 64 bytes.
    ///   - userName, userDisplayName: what the browser shows in its account picker.
    ///   - challenge: fresh random bytes (at least 16), kept server-side for one use.
    ///   - excludeCredentialIDs: the user's existing credential IDs, so an
    ///     authenticator that already holds one is not registered twice.
    public init(relyingParty: RelyingParty, relyingPartyName: String, userID: [UInt8], userName: String,
                userDisplayName: String, challenge: [UInt8], excludeCredentialIDs: [[UInt8]] = [],
                userVerification: UserVerificationRequirement = .preferred, timeoutMilliseconds: Int = 300_000) {
        self.challenge = Base64URL.encode(challenge)
        rp = RP(id: relyingParty.id, name: relyingPartyName)
        user = User(id: Base64URL.encode(userID), name: userName, displayName: userDisplayName)
        pubKeyCredParams = COSEAlgorithm.allCases.map { Parameter(type: "public-key", alg: $0.rawValue) }
        timeout = timeoutMilliseconds
        attestation = "none"
        authenticatorSelection = Selection(residentKey: "preferred", requireResidentKey: false,
                                           userVerification: userVerification)
        excludeCredentials = excludeCredentialIDs.map(CredentialDescriptor.init(id:))
    }
}

/// The options for `navigator.credentials.get`, as the JSON that
/// `signInWithPasskey(options)` in `passkeys.js` reads.
public struct PasskeyRequestOptions: Sendable, Encodable {
    public let challenge: String
    public let rpId: String
    public let allowCredentials: [CredentialDescriptor]
    public let userVerification: UserVerificationRequirement
    public let timeout: Int

    /// - Parameter allowCredentialIDs: the known user's credential IDs, or empty to
    ///   let the browser offer any discoverable passkey for this RP ID.
    public init(relyingParty: RelyingParty, challenge: [UInt8], allowCredentialIDs: [[UInt8]] = [],
                userVerification: UserVerificationRequirement = .preferred, timeoutMilliseconds: Int = 300_000) {
        self.challenge = Base64URL.encode(challenge)
        rpId = relyingParty.id
        allowCredentials = allowCredentialIDs.map(CredentialDescriptor.init(id:))
        self.userVerification = userVerification
        timeout = timeoutMilliseconds
    }
}

/// A credential named in `allowCredentials` or `excludeCredentials`.
public struct CredentialDescriptor: Sendable, Encodable {
    public let type: String
    /// The credential ID, base64url.
    public let id: String

    init(id: [UInt8]) {
        type = "public-key"
        self.id = Base64URL.encode(id)
    }
}
