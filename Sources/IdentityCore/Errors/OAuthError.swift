/// An error the front door reports to a client as RFC 6749 JSON
/// (`{"error": ..., "error_description": ...}`).
///
/// `description` is public and reaches the client; `debug` is for logs only and
/// must never contain a secret or a token.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The RFC 6749 `error` value; the allowed set is in docs/protocol.md, "Errors".
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidRequest = Code(rawValue: "invalid_request")
        public static let invalidClient = Code(rawValue: "invalid_client")
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        public static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        public static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        public static let invalidScope = Code(rawValue: "invalid_scope")
        /// RFC 8707: a `resource` the client may not get a token for.
        public static let invalidTarget = Code(rawValue: "invalid_target")
        /// OIDC Core 6: request objects (`request`) are not processed.
        public static let requestNotSupported = Code(rawValue: "request_not_supported")
        /// RFC 9101 §6.3: the request object's signature or claims do not hold.
        public static let invalidRequestObject = Code(rawValue: "invalid_request_object")
        /// OIDC Core 6: a `request_uri` the pushed authorization endpoint did not issue.
        public static let requestURINotSupported = Code(rawValue: "request_uri_not_supported")
        public static let invalidToken = Code(rawValue: "invalid_token")
        public static let accessDenied = Code(rawValue: "access_denied")
        public static let serverError = Code(rawValue: "server_error")
        public static let temporarilyUnavailable = Code(rawValue: "temporarily_unavailable")
        public static let loginRequired = Code(rawValue: "login_required")
        /// OIDC Core 3.1.2.6: the app needs the user's consent, which `prompt=none` (or a sign-in
        /// without the starting browser) cannot ask for (docs/consent.md).
        public static let consentRequired = Code(rawValue: "consent_required")
        /// OpenID Connect Core Unmet Authentication Requirements 1.0: an essential `acr` the
        /// sign-in cannot reach.
        public static let unmetAuthenticationRequirements = Code(rawValue: "unmet_authentication_requirements")
        /// RFC 9470: the access token's sign-in is not strong enough for this resource; the
        /// client signs in again with the `acr_values` the challenge names.
        public static let insufficientUserAuthentication = Code(rawValue: "insufficient_user_authentication")
        /// RFC 8628 §3.5: the device's user has not finished yet; poll again after `interval`.
        public static let authorizationPending = Code(rawValue: "authorization_pending")
        /// RFC 8628 §3.5: the device polled too often; its interval grew by 5 seconds.
        public static let slowDown = Code(rawValue: "slow_down")
        /// RFC 8628 §3.5: the device code expired; the device starts again.
        public static let expiredToken = Code(rawValue: "expired_token")
        /// RFC 9449 §5, §7.1: the DPoP proof is missing, malformed, replayed or of another key.
        public static let invalidDPoPProof = Code(rawValue: "invalid_dpop_proof")
        /// RFC 9449 §8, §9: sign the proof again with the nonce of the `DPoP-Nonce` header.
        public static let useDPoPNonce = Code(rawValue: "use_dpop_nonce")
        /// A second factor is needed (docs/mfa.md): the description says what to do.
        public static let mfaRequired = Code(rawValue: "mfa_required")
        public static let invalidRedirectURI = Code(rawValue: "invalid_redirect_uri")
        public static let invalidClientMetadata = Code(rawValue: "invalid_client_metadata")
        public static let invalidSoftwareStatement = Code(rawValue: "invalid_software_statement")
        public static let unapprovedSoftwareStatement = Code(rawValue: "unapproved_software_statement")
    }

    public var code: Code
    /// Human-readable text for the client (`error_description`).
    public var errorDescription: String
    /// HTTP status the error is answered with.
    public var status: Int
    /// Private detail for logs; never sent to the client.
    public var debug: String?
    /// Seconds after which a retry may succeed (429, 503): sent as `Retry-After`.
    public var retryAfter: Int?
    /// A fresh DPoP server nonce (RFC 9449 §8): sent as `DPoP-Nonce`.
    public var dpopNonce: String?
    /// A resource request that used or needs DPoP: the challenge is `WWW-Authenticate: DPoP`
    /// (RFC 9449 §7.1) instead of `Bearer`.
    public var dpopChallenge = false

    public init(_ code: Code, _ description: String, status: Int? = nil, debug: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.errorDescription = description
        self.status = status ?? Self.defaultStatus(for: code)
        self.debug = debug
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(errorDescription)" }

    static func defaultStatus(for code: Code) -> Int {
        switch code {
        case .invalidClient, .invalidToken, .insufficientUserAuthentication: 401
        case .serverError: 500
        case .temporarilyUnavailable: 503
        default: 400
        }
    }

    public static func invalidRequest(_ d: String, debug: String? = nil) -> OAuthError { .init(.invalidRequest, d, debug: debug) }
    public static func invalidClient(_ d: String, debug: String? = nil) -> OAuthError { .init(.invalidClient, d, debug: debug) }
    public static func invalidGrant(_ d: String, debug: String? = nil) -> OAuthError { .init(.invalidGrant, d, debug: debug) }
    public static func invalidToken(_ d: String, debug: String? = nil) -> OAuthError { .init(.invalidToken, d, debug: debug) }
    public static func accessDenied(_ d: String, debug: String? = nil) -> OAuthError { .init(.accessDenied, d, debug: debug) }
    public static func unauthorizedClient(_ d: String) -> OAuthError { .init(.unauthorizedClient, d) }
    public static func mfaRequired(_ d: String) -> OAuthError { .init(.mfaRequired, d) }
    public static func unsupportedGrantType(_ d: String) -> OAuthError { .init(.unsupportedGrantType, d) }
    public static func invalidScope(_ d: String) -> OAuthError { .init(.invalidScope, d) }
    public static func invalidTarget(_ d: String) -> OAuthError { .init(.invalidTarget, d) }
    /// The identity source answered nonsense (502), docs/protocol.md, "Errors".
    public static func upstreamNonsense(_ d: String, debug: String? = nil) -> OAuthError { .init(.serverError, d, status: 502, debug: debug) }
    /// The identity source is down or timed out (503), docs/protocol.md, "Errors".
    public static func unavailable(_ d: String, debug: String? = nil) -> OAuthError { .init(.temporarilyUnavailable, d, debug: debug) }
    /// A fault of the broker itself (500). Used only for genuinely unexpected failures.
    public static func internalFailure(_ debug: String) -> OAuthError {
        .init(.serverError, "The server could not complete the request.", status: 500, debug: debug)
    }
}
