import HTTPTypes

/// Header names HTTPTypes does not predefine.
extension HTTPField.Name {
    static let pragma = HTTPField.Name("Pragma")!
    static let requestId = HTTPField.Name("X-Request-Id")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let kinveyRequestId = HTTPField.Name("X-Kinvey-Request-Id")!
    static let authKey = HTTPField.Name("X-Auth-Key")!
    /// RFC 9449: the proof of possession a request carries.
    static let dpop = HTTPField.Name("DPoP")!
    /// RFC 9449 §8: a server nonce for the next DPoP proof.
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
