import IdentityCore
import LDAPClient

/// The settings both directory connectors share, read from `remoteService`, `authentication`
/// and `options` (docs/connectors/ldap.md; docs/connectors/active-directory.md).
struct DirectoryOptions: Sendable {
    enum Kind: Sendable { case ldap, activeDirectory }

    var kind: Kind
    var server: LDAPServer
    /// Service account for searches and the upstream re-check; `nil` in pure direct-bind setups.
    var service: LDAPCredentials?
    var baseDn: String?
    /// `ldap`: the user search filter with `{username}`; `active-directory`: an extra condition.
    var userFilter: String
    /// `ldap` direct bind: `uid={username},ou=people,dc=example,dc=org`.
    var bindDnTemplate: String?
    var userIdAttribute: String
    /// Claim name → directory attribute (`email: mail`, `name: cn`).
    var attributeMap: [String: String]
    var groupBaseDn: String?
    /// With `{dn}` and `{username}` (both escaped).
    var groupFilter: String
    var groupNameAttribute: String
    /// Read group DNs from this attribute of the user entry (`nil`: off).
    var memberOfAttribute: String?
    /// AD: UPN suffix appended to bare usernames (`corp.example.org`).
    var domain: String?
    /// AD: NetBIOS domain for `DOMAIN\user` binds (`CORP`).
    var netbiosDomain: String?
    /// AD: expand nested groups through LDAP_MATCHING_RULE_IN_CHAIN.
    var nestedGroups: Bool
    /// Seconds until the account is re-checked with the service bind (the upstream TTL,
    /// docs/connectors/ldap.md, "Sessions: the re-check").
    var recheckInterval: Int

    /// Every attribute a user lookup asks for.
    var userAttributes: [String] {
        var names = [userIdAttribute] + attributeMap.values.sorted()
        if let memberOfAttribute { names.append(memberOfAttribute) }
        if kind == .activeDirectory { names += ["userAccountControl", "sAMAccountName", "userPrincipalName"] }
        var seen: Set<String> = []
        return names.filter { seen.insert($0.lowercased()).inserted }
    }

    /// Reads and validates the provider section; throws ``ConfigProblems`` naming every problem.
    static func read(_ settings: ProviderSettings, kind: Kind) throws -> DirectoryOptions {
        let problems = ProblemSink()
        let typeName = kind == .ldap ? "ldap" : "active-directory"
        let url = settings.remoteService ?? ""
        if ConfigReader.absoluteURL(url, schemes: ["ldap", "ldaps"]) == nil {
            problems.add(settings.problem("remoteService", "\(typeName) needs remoteService: an ldap:// or ldaps:// URL"))
        }
        var service: LDAPCredentials?
        if let authentication = settings.authentication {
            let reader = ConfigReader(authentication, problems: problems)
            let username = reader.string("username", required: true)
            let password = reader.string("password", required: true)
            reader.finish()
            if let username, let password, !username.isEmpty, !password.isEmpty {
                service = LDAPCredentials(dn: username, password: password)
            }
        }
        guard let optionsNode = settings.options else {
            problems.add(settings.problem("options", "\(typeName) needs options (at least baseDn or bindDnTemplate)"))
            throw ConfigProblems(problems.problems)
        }
        let reader = ConfigReader(optionsNode, problems: problems)
        let isAD = kind == .activeDirectory
        var options = DirectoryOptions(
            kind: kind, server: LDAPServer(url: url), service: service,
            baseDn: reader.string("baseDn", required: isAD),
            userFilter: reader.string("userFilter") ?? (isAD ? "" : "(uid={username})"),
            bindDnTemplate: isAD ? nil : reader.string("bindDnTemplate"),
            userIdAttribute: reader.string("userIdAttribute") ?? (isAD ? "sAMAccountName" : "uid"),
            attributeMap: isAD ? ["email": "mail", "name": "displayName"] : ["email": "mail", "name": "cn"],
            groupBaseDn: reader.string("groupBaseDn"),
            groupFilter: reader.string("groupFilter") ?? (isAD ? "(&(objectClass=group)(member={dn}))" : "(|(member={dn})(uniqueMember={dn})(memberUid={username}))"),
            groupNameAttribute: reader.string("groupNameAttribute") ?? "cn",
            memberOfAttribute: (reader.bool("memberOf") ?? true) ? "memberOf" : nil,
            domain: isAD ? reader.string("domain") : nil,
            netbiosDomain: isAD ? reader.string("netbiosDomain") : nil,
            nestedGroups: isAD ? (reader.bool("nestedGroups") ?? false) : false,
            recheckInterval: reader.positiveInt("recheckInterval") ?? 300)
        if let extra = reader.stringMap("attributes") {
            for (claim, attribute) in extra { options.attributeMap[claim] = attribute }
        }
        options.server.startTLS = reader.bool("startTls") ?? false
        options.server.caFile = reader.string("caFile")
        options.server.connectTimeoutMs = (reader.positiveInt("connectTimeout") ?? 5) * 1000
        options.server.operationTimeoutMs = (reader.positiveInt("timeout") ?? 15) * 1000
        options.server.maxIdle = reader.positiveInt("poolSize") ?? 8
        reader.finish()
        options.validate(reader: reader, settings: settings, problems: problems)
        try problems.throwIfAny()
        return options
    }

    private func validate(reader: ConfigReader, settings: ProviderSettings, problems: ProblemSink) {
        if server.startTLS && server.url.lowercased().hasPrefix("ldaps://") {
            reader.problem("startTls", "cannot be combined with an ldaps:// remoteService (already TLS)")
        }
        if server.operationTimeoutMs > 300_000 { reader.problem("timeout", "must be at most 300 seconds") }
        if server.connectTimeoutMs > 300_000 { reader.problem("connectTimeout", "must be at most 300 seconds") }
        switch kind {
        case .ldap:
            if bindDnTemplate == nil && service == nil {
                problems.add(settings.problem("authentication",
                    "ldap needs either options.bindDnTemplate (direct bind) or authentication {username, password} (search then bind)"))
            }
            if bindDnTemplate == nil && baseDn == nil { reader.problem("baseDn", "is required for search then bind") }
            if let bindDnTemplate, !bindDnTemplate.contains("{username}") {
                reader.problem("bindDnTemplate", "must contain {username}")
            }
            if bindDnTemplate == nil && !userFilter.contains("{username}") { reader.problem("userFilter", "must contain {username}") }
        case .activeDirectory:
            // AD finds the account by the name typed; userFilter only adds conditions. A Kinvey
            // export's `(sAMAccountName={username})` would search for the literal text.
            if userFilter.contains("{username}") || userFilter.contains("{dn}") {
                reader.problem("userFilter", "is an extra condition for active-directory and cannot use {username} or {dn}; the account is found by the name typed")
            }
            if domain == nil && netbiosDomain == nil {
                reader.problem("domain", "active-directory needs domain (UPN suffix) or netbiosDomain to bind bare usernames")
            }
        }
        if groupBaseDn != nil && !(groupFilter.contains("{dn}") || groupFilter.contains("{username}")) {
            reader.problem("groupFilter", "must contain {dn} or {username}")
        }
    }
}
