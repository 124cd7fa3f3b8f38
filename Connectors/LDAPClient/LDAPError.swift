import CLDAP

/// A failed libldap call: the result code, libldap's text for it and the server's diagnostic
/// message (Active Directory puts its `data 52e`-style sub-codes there).
public struct LDAPError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String
    public let diagnostic: String?

    public init(code: Int32, operation: String, diagnostic: String? = nil) {
        self.code = code
        self.operation = operation
        self.diagnostic = diagnostic
    }

    /// RFC 4511 invalidCredentials (49): the password (or the DN) was wrong.
    public var isInvalidCredentials: Bool { code == LDAP_INVALID_CREDENTIALS }

    /// The directory could not be reached or did not answer in time: the connection is unusable and
    /// the outcome is `temporarily_unavailable`, not the user's fault.
    public var isConnectionProblem: Bool {
        [LDAP_SERVER_DOWN, LDAP_TIMEOUT, LDAP_CONNECT_ERROR, LDAP_LOCAL_ERROR, LDAP_ENCODING_ERROR,
         LDAP_DECODING_ERROR, LDAP_BUSY, LDAP_UNAVAILABLE, LDAP_TIMELIMIT_EXCEEDED].contains(code)
    }

    /// The server closed the connection (restart, idle timeout): worth one retry on a fresh
    /// connection. A timeout is not: retrying would only double the wait.
    public var isClosedConnection: Bool { code == LDAP_SERVER_DOWN }

    public var description: String {
        let text = String(cString: ldap_err2string(code))
        return "\(operation): \(text) (\(code))" + (diagnostic.map { $0.isEmpty ? "" : " — \($0)" } ?? "")
    }
}
