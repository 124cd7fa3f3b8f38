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

    /// `active-directory`: bind as the UPN or `DOMAIN\user` (AD checks the password and the account
    /// state, answering with a data code), then read the account and refuse disabled ones.
    func activeDirectoryLogin(username: String, password: String) async throws -> Verdict {
        guard let login = ActiveDirectory.login(for: username, domain: options.domain, netbiosDomain: options.netbiosDomain) else {
            return .rejected(LoginRejection(.invalidCredentials))
        }
        let filter = "(&(objectClass=user)\(login.lookupFilter)\(options.userFilter))"
        let verdict = try await bindThenRead(bindName: login.bindName, password: password, base: options.baseDn ?? "",
                                             scope: .subtree, filter: filter, username: username) { error in
            ActiveDirectory.rejection(forDataCode: ActiveDirectory.dataCode(in: error.diagnostic))
        }
        if case .found(let entry, _) = verdict, ActiveDirectory.isDisabled(entry) {
            return .rejected(LoginRejection(.accountDisabled))
        }
        return verdict
    }

    /// Binds as the user, then reads the account and its groups: with the service account when
    /// there is one, otherwise as the user on the same connection.
    private func bindThenRead(bindName: String, password: String, base: String, scope: LDAPScope, filter: String,
                              username: String, refusal: @escaping @Sendable (LDAPError) -> LoginRejection) async throws -> Verdict {
        let read: @Sendable (LDAPHandle) throws -> Verdict = { [self] handle in
            let entries = try findUsers(handle, base: base, scope: scope, filter: filter)
            guard entries.count == 1, let entry = entries.first else { return .rejected(LoginRejection(.invalidCredentials)) }
            return .found(entry, groups: try groupNames(handle, entry: entry, username: username))
        }
        if options.service == nil {
            return try await bindPool.withConnection { [self] handle in
                if let error = try bindUser(handle, dn: bindName, password: password) { return .rejected(refusal(error)) }
                return try read(handle)
            }
        }
        let error = try await bindPool.withConnection { [self] handle in try bindUser(handle, dn: bindName, password: password) }
        if let error { return .rejected(refusal(error)) }
        return try await withService(read)
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
