import IdentityCore
import LDAPClient

extension DirectoryConnector {
    /// `ldap`: direct bind through `bindDnTemplate`, or search with the service account then bind
    /// as the entry found. User input enters filters and DNs only escaped (RFC 4515 / RFC 4514).
    func ldapLogin(username: String, password: String) async throws -> Verdict {
        let filter = LDAPEscaping.fill(options.userFilter, ["username": LDAPEscaping.filterValue(username)])
        if let template = options.bindDnTemplate {
            let dn = LDAPEscaping.fill(template, ["username": LDAPEscaping.dnValue(username)])
            return try await bindThenRead(bindName: dn, password: password, base: dn, scope: .base, filter: filter,
                                          username: username, refusal: { _ in LoginRejection(.invalidCredentials) })
        }
        let baseDn = options.baseDn ?? ""
        let found = try await withService { [self] handle -> Verdict? in
            let entries = try findUsers(handle, base: baseDn, scope: .subtree, filter: filter)
            guard entries.count == 1, let entry = entries.first else { return nil }
            return .found(entry, groups: try groupNames(handle, entry: entry, username: username))
        }
        guard case .found(let entry, _) = found else {
            // Unknown (or ambiguous) user: same answer as a wrong password.
            return .rejected(LoginRejection(.invalidCredentials))
        }
        let refusal = try await bindPool.withConnection { [self] handle in try bindUser(handle, dn: entry.dn, password: password) }
        return refusal == nil ? found! : .rejected(LoginRejection(.invalidCredentials))
    }

    /// `active-directory`: AD checks the password and the account state, answering a refused
    /// bind with a data code. With a service account the account is found first (by
    /// `sAMAccountName` or `userPrincipalName`) and its DN binds, so the account whose attributes
    /// are used is by construction the one that proved the password (docs/security.md, rule 17);
    /// without one, the user binds as the UPN or `DOMAIN\user`, the account is read on that
    /// connection and confirmed (Who am I?, or a bind as the DN read). Disabled accounts are
    /// refused.
    func activeDirectoryLogin(username: String, password: String) async throws -> Verdict {
        guard let login = ActiveDirectory.login(for: username, domain: options.domain, netbiosDomain: options.netbiosDomain) else {
            return .rejected(LoginRejection(.invalidCredentials))
        }
        let filter = "(&(objectClass=user)\(login.lookupFilter)\(options.userFilter))"
        let base = options.baseDn ?? ""
        let refusal: @Sendable (LDAPError) -> LoginRejection = { error in
            ActiveDirectory.rejection(forDataCode: ActiveDirectory.dataCode(in: error.diagnostic))
        }
        let verdict: Verdict
        if options.service != nil {
            let found = try await withService { [self] handle -> Verdict? in
                let entries = try findUsers(handle, base: base, scope: .subtree, filter: filter)
                guard entries.count == 1, let entry = entries.first else { return nil }
                return .found(entry, groups: try groupNames(handle, entry: entry, username: username))
            }
            guard case .found(let entry, _) = found else { return .rejected(LoginRejection(.invalidCredentials)) }
            let error = try await bindPool.withConnection { [self] handle in try bindUser(handle, dn: entry.dn, password: password) }
            verdict = error.map { .rejected(refusal($0)) } ?? found!
        } else {
            verdict = try await bindThenRead(bindName: login.bindName, password: password, base: base,
                                             scope: .subtree, filter: filter, username: username, refusal: refusal)
        }
        if case .found(let entry, _) = verdict, ActiveDirectory.isDisabled(entry) {
            return .rejected(LoginRejection(.accountDisabled))
        }
        return verdict
    }

    /// Binds as the user, then reads the account and its groups: with the service account when
    /// there is one, otherwise as the user on the same connection. The account read must be the
    /// one that bound (docs/security.md, rule 17): the server's "Who am I?" answer for the user's
    /// connection is compared with the entry found, and a mismatch is refused like a wrong
    /// password.
    private func bindThenRead(bindName: String, password: String, base: String, scope: LDAPScope, filter: String,
                              username: String, refusal: @escaping @Sendable (LDAPError) -> LoginRejection) async throws -> Verdict {
        let read: @Sendable (LDAPHandle, String?) throws -> Verdict = { [self] handle, boundAs in
            let entries = try findUsers(handle, base: base, scope: scope, filter: filter)
            guard entries.count == 1, let entry = entries.first else { return .rejected(LoginRejection(.invalidCredentials)) }
            guard DirectoryIdentity.matches(boundAs, entry: entry, kind: options.kind, userIdAttribute: options.userIdAttribute) else {
                logger.notice("the bound directory account is not the account found for the username; sign-in refused")
                return .rejected(LoginRejection(.invalidCredentials))
            }
            return .found(entry, groups: try groupNames(handle, entry: entry, username: username))
        }
        if options.service == nil {
            return try await bindPool.withConnection { [self] handle in
                if let error = try bindUser(handle, dn: bindName, password: password) { return .rejected(refusal(error)) }
                let boundAs = try handle.whoAmI()
                let verdict = try read(handle, boundAs)
                // Without a Who-am-I answer (Samba has none) the password must also bind the DN read.
                if boundAs == nil, case .found(let entry, _) = verdict,
                   DirectoryIdentity.normalizedDN(entry.dn) != DirectoryIdentity.normalizedDN(bindName),
                   try bindUser(handle, dn: entry.dn, password: password) != nil {
                    logger.notice("the bound directory account is not the account found for the username; sign-in refused")
                    return .rejected(LoginRejection(.invalidCredentials))
                }
                return verdict
            }
        }
        let bound = try await bindPool.withConnection { [self] handle -> Result<String?, LDAPError> in
            if let error = try bindUser(handle, dn: bindName, password: password) { return .failure(error) }
            return .success(try handle.whoAmI())
        }
        switch bound {
        case .failure(let error): return .rejected(refusal(error))
        case .success(let boundAs): return try await withService { handle in try read(handle, boundAs) }
        }
    }

    /// Binds as a user. Returns the refusal (wrong password, account state) as a value; throws
    /// outages and anything unexpected.
    func bindUser(_ handle: LDAPHandle, dn: String, password: String) throws -> LDAPError? {
        do {
            try handle.bind(LDAPCredentials(dn: dn, password: password))
            return nil
        } catch let error as LDAPError where Self.refusalCodes.contains(error.code) {
            return error
        }
    }

    /// invalidCredentials (49), inappropriateAuthentication (48), unwillingToPerform (53),
    /// constraintViolation (19, password policy), invalidDNSyntax (34: a username that makes no DN).
    static let refusalCodes: Set<Int32> = [49, 48, 53, 19, 34]
}
