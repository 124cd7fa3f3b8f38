import LDAPClient

/// Whether the account a user bound as is the account whose attributes and groups the broker
/// is about to use (docs/security.md, rule 17). AD binds with one spelling of a name (UPN,
/// `DOMAIN\name`) and the account is then looked up by another (`sAMAccountName`,
/// `userPrincipalName`): two accounts could answer to them. The server's "Who am I?" (RFC 4532)
/// names the bound one.
enum DirectoryIdentity {
    /// `boundAs` is the Who-am-I answer: `dn:<DN>` or `u:[DOMAIN\]<name>`; nil when the server
    /// gave none, where the read itself is the check (a direct bind reads the bound DN).
    static func matches(_ boundAs: String?, entry: LDAPEntry, kind: DirectoryOptions.Kind, userIdAttribute: String) -> Bool {
        guard let boundAs else { return true }
        if boundAs.hasPrefix("dn:") {
            return normalizedDN(String(boundAs.dropFirst(3))) == normalizedDN(entry.dn)
        }
        if boundAs.hasPrefix("u:") {
            var name = Substring(boundAs.dropFirst(2))
            if let slash = name.lastIndex(of: "\\") { name = name[name.index(after: slash)...] }
            let candidates = kind == .activeDirectory ? entry.values("sAMAccountName") : entry.values(userIdAttribute)
            return candidates.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
        return false
    }

    /// A DN compared loosely: case-insensitive, without spaces around separators.
    static func normalizedDN(_ dn: String) -> String {
        dn.split(separator: ",").map { rdn in
            rdn.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "=")
        }.joined(separator: ",").lowercased()
    }
}
