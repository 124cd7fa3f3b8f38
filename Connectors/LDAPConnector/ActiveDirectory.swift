import IdentityCore
import LDAPClient

/// Active Directory specifics: how a typed username becomes a bind name and a lookup filter, and
/// what AD's bind error sub-codes mean
/// (docs/connectors/active-directory.md, "How a sign-in works").
enum ActiveDirectory {
    /// How to bind and then find the account for a username typed as `alice`,
    /// `alice@corp.example.org` or `CORP\alice`.
    struct Login: Equatable {
        var bindName: String
        /// Escaped filter selecting the account.
        var lookupFilter: String
    }

    /// `nil` when the username names another NetBIOS domain than the configured one.
    static func login(for username: String, domain: String?, netbiosDomain: String?) -> Login? {
        if let slash = username.firstIndex(of: "\\") {
            let prefix = String(username[..<slash])
            let account = String(username[username.index(after: slash)...])
            guard !prefix.isEmpty, !account.isEmpty, !account.contains("\\") else { return nil }
            if let netbiosDomain, prefix.caseInsensitiveCompare(netbiosDomain) != .orderedSame { return nil }
            return Login(bindName: username, lookupFilter: "(sAMAccountName=\(LDAPEscaping.filterValue(account)))")
        }
        if username.contains("@") {
            return Login(bindName: username, lookupFilter: "(userPrincipalName=\(LDAPEscaping.filterValue(username)))")
        }
        let escaped = LDAPEscaping.filterValue(username)
        if let domain { return Login(bindName: "\(username)@\(domain)", lookupFilter: "(sAMAccountName=\(escaped))") }
        return Login(bindName: "\(netbiosDomain ?? "")\\\(username)", lookupFilter: "(sAMAccountName=\(escaped))")
    }

    /// The AD sub-code in a bind diagnostic such as
    /// `80090308: LdapErr: DSID-0C09041C, comment: AcceptSecurityContext error, data 52e, v4563`.
    static func dataCode(in diagnostic: String?) -> String? {
        guard let diagnostic, let range = diagnostic.range(of: "data ") else { return nil }
        let code = diagnostic[range.upperBound...].prefix { $0.isHexDigit }
        return code.isEmpty ? nil : code.lowercased()
    }

    /// The login-page verdict for a refused bind. Unknown user (525) reads like a wrong password so
    /// the page does not tell which usernames exist.
    static func rejection(forDataCode code: String?) -> LoginRejection {
        switch code {
        case "530": LoginRejection(.other, message: "This account may not sign in at this time of day.")
        case "531": LoginRejection(.other, message: "This account may not sign in from this computer.")
        case "532": LoginRejection(.passwordExpired)
        case "533": LoginRejection(.accountDisabled)
        case "701": LoginRejection(.accountDisabled, message: "This account has expired. Contact your administrator.")
        case "773": LoginRejection(.mustChangePassword)
        case "775": LoginRejection(.accountLocked)
        default: LoginRejection(.invalidCredentials)   // 52e, 525 and anything unrecognised
        }
    }

    /// userAccountControl bit 2 (ACCOUNTDISABLE).
    static func isDisabled(_ entry: LDAPEntry) -> Bool {
        guard let text = entry.first("userAccountControl"), let flags = Int(text) else { return false }
        return flags & 0x2 != 0
    }

    /// LDAP_MATCHING_RULE_IN_CHAIN: every group `dn` belongs to, directly or through other groups.
    static func nestedGroupFilter(userDN: String) -> String {
        "(&(objectClass=group)(member:1.2.840.113556.1.4.1941:=\(LDAPEscaping.filterValue(userDN))))"
    }
}
