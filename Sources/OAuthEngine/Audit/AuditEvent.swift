import Foundation

/// Something an operator must be able to answer for later: who signed in, when, from where and
/// through what; which sign-ins failed and why; which sessions ended and why; which app
/// instances came and went; when keys changed. Fields are plain strings and never hold a secret:
/// no password, token, code, cookie or upstream assertion — a username, a client id, an address,
/// a session id (it is not a credential) and a reason.
public struct AuditEvent: Sendable, Equatable {
    /// The event names, stable: dashboards and alerts match on them.
    public enum Name: String, Sendable, CaseIterable {
        case signInSucceeded = "sign_in.succeeded"
        case signInFailed = "sign_in.failed"
        case refreshReuseDetected = "refresh.reuse_detected"
        case codeReplayed = "code.replayed"
        case sessionEnded = "session.ended"
        case instanceRegistered = "instance.registered"
        case instanceDeleted = "instance.deleted"
        case signingKeyRotated = "signing_key.rotated"
        case vaultRotated = "vault.rotated"
        case qrRefused = "qr.refused"
        /// A second factor was enrolled (`method`: totp, webauthn).
        case mfaEnrolled = "mfa.enrolled"
        /// A user's second factors were removed (`by`: operator).
        case mfaRemoved = "mfa.removed"
        /// A second-factor attempt failed (`reason`: wrong_code, replayed, throttled, malformed,
        /// passkey_refused, unknown_passkey).
        case mfaFailed = "mfa.failed"
        /// A recovery code was used (`left`: how many remain).
        case mfaRecoveryCodeUsed = "mfa.recovery_code_used"
        /// A passkey's signature counter did not grow: possibly a cloned authenticator.
        case mfaCounterAnomaly = "mfa.counter_anomaly"
        /// The user made new recovery codes on the account page (the old ones stopped working).
        case mfaRecoveryCodesRenewed = "mfa.recovery_codes_renewed"
        /// The user renamed a passkey on the account page.
        case mfaPasskeyRenamed = "mfa.passkey_renamed"
        /// From the account page (docs/account.md): the user signed out one browser (`session`,
        /// `this_browser`), removed an app (`client`, `families`), removed a device (`client`), or
        /// signed out everywhere (`sessions`), or ended a device's shared sign-in (`session`, `apps`).
        case accountBrowserSignedOut = "account.browser_signed_out"
        case accountSharedSignInEnded = "account.shared_sign_in_ended"
        case accountAppRemoved = "account.app_removed"
        case accountDeviceRemoved = "account.device_removed"
        case accountSignedOutEverywhere = "account.signed_out_everywhere"
        /// The device grant (docs/device-grant.md): the user signed in and allowed a device
        /// (`client`, `session`, `subject`, `address`), or refused it (`client`, `address`).
        case deviceApproved = "device.approved"
        case deviceDenied = "device.denied"
        /// A token exchange (docs/token-exchange.md): `client` got a token for the user of
        /// `subject_client`'s token (`subject`, `session`); `kind` `access_token` (with `audience`
        /// and `actor`) or `upstream` (`audience`: the data link).
        case tokenExchanged = "token.exchanged"
        /// A relying party's back-channel logout endpoint did not take a logout token
        /// (docs/protocol.md, "Back-channel logout to relying parties"): `client`, `session`,
        /// `attempt`, `reason`; `final` `true` when the broker gave up on that client.
        case backchannelLogoutFailed = "backchannel_logout.failed"
        /// The consent screen (docs/consent.md): the user allowed an app (`client`, `subject`,
        /// `scopes` granted, `withheld` unticked) or refused it (`client`, `subject`); a consent was
        /// removed (`client`, `subject`, `by`: `user` on the account page or `operator`).
        case consentGranted = "consent.granted"
        case consentDenied = "consent.denied"
        case consentRevoked = "consent.revoked"
        /// A back end's permission request (docs/consent.md, "Permission requests"): made
        /// (`permission`, `client`, `user`, `scope`, `external_reference`), then granted, denied,
        /// expired or revoked (`permission`, `client`, `subject`, `scope` granted).
        case permissionRequested = "permission.requested"
        case permissionGranted = "permission.granted"
        case permissionDenied = "permission.denied"
        case permissionExpired = "permission.expired"
        case permissionRevoked = "permission.revoked"
    }

    /// Why a session ended (`session.ended`'s `reason`).
    public enum SessionEnd: String, Sendable {
        /// The user signed out (RP-initiated logout).
        case logout
        /// The identity source refused to refresh the sign-in (the account was disabled, the
        /// upstream session ended).
        case identitySource = "identity_source"
        /// An app revoked its last token in the session.
        case revoked
        /// A refresh token was reused or a code replayed: everything issued from it was revoked.
        case reuse
        /// The app instance holding the session was deleted (by itself or an operator).
        case instanceDeleted = "instance_deleted"
        /// An operator ended it (`idconnect sessions revoke`).
        case `operator`
        /// The user ended it on the account page (a browser signed out, signed out everywhere, an
        /// app removed that was all the session held).
        case user
        /// The identity source signed the user out: a verified SAML LogoutRequest from the IdP at
        /// `/saml/slo` (a sign-out the user starts at the broker is `logout`).
        case samlLogout = "saml_logout"
        /// The identity source signed the user out server to server: a verified OpenID Connect
        /// back-channel `logout_token` from the provider (docs/connectors/oauth2-oidc.md).
        case backchannelLogout = "backchannel_logout"
    }

    public var name: Name
    public var fields: [String: String]

    /// Events that mean someone may be attacking a user: counted apart
    /// (`idconnect_security_events_total{kind}`) so that alerts need no log search.
    public var securityKind: String? {
        switch name {
        case .refreshReuseDetected: "refresh_reuse"
        case .codeReplayed: "code_replay"
        case .qrRefused where fields["cause"] == "unauthorized": "qr_refused_unauthorized"
        case .mfaCounterAnomaly: "passkey_counter"
        default: nil
        }
    }

    public init(_ name: Name, _ fields: [String: String?]) {
        self.name = name
        self.fields = fields.compactMapValues { $0 }.mapValues(Self.bounded)
    }

    /// Values are cut at 256 bytes (a username field can hold anything a client sent).
    static func bounded(_ value: String) -> String {
        value.utf8.count <= 256 ? value : String(decoding: value.utf8.prefix(256), as: UTF8.self)
    }

    public static func signInSucceeded(connector: String, authService: String, client: String, address: String?,
                                       user: String, subject: String, session: String) -> AuditEvent {
        AuditEvent(.signInSucceeded, ["connector": connector, "auth_service": authService, "client": client,
                                      "address": address, "user": user, "subject": subject, "session": session])
    }

    /// `reason`: `rejected` (the identity source said no), `throttled`, `unavailable`, `error`,
    /// `replayed`; `detail` the source's message when it gave one.
    public static func signInFailed(connector: String, authService: String, client: String, address: String?,
                                    user: String?, reason: String, detail: String? = nil) -> AuditEvent {
        AuditEvent(.signInFailed, ["connector": connector, "auth_service": authService, "client": client,
                                   "address": address, "user": user, "reason": reason, "detail": detail])
    }

    public static func sessionEnded(session: String, reason: SessionEnd, client: String? = nil) -> AuditEvent {
        AuditEvent(.sessionEnded, ["session": session, "reason": reason.rawValue, "client": client])
    }

    public static func backchannelLogoutFailed(client: String, session: String, attempt: Int, reason: String, final: Bool) -> AuditEvent {
        AuditEvent(.backchannelLogoutFailed, ["client": client, "session": session, "attempt": String(attempt),
                                              "reason": bounded(reason), "final": final ? "true" : "false"])
    }
}
