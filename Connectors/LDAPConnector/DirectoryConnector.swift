import Foundation
import IdentityCore
import LDAPClient
import Logging

/// The `ldap` and `active-directory` connectors (docs/connectors/ldap.md;
/// docs/connectors/active-directory.md): a password is checked by binding as the user; the account,
/// its attributes and groups are read with the service account (or as the user in direct-bind
/// setups without one). Two connection pools per auth service: one stays bound as the service
/// account for searches, the other does user binds.
final class DirectoryConnector: PasswordConnector, RefreshingConnector {
    let options: DirectoryOptions
    let searchPool: LDAPConnectionPool
    let bindPool: LDAPConnectionPool
    let clock: any BrokerClock
    let logger: Logger

    /// Longer inputs are refused before anything reaches the directory.
    static let maxUsernameBytes = 256
    static let maxPasswordBytes = 1024

    init(options: DirectoryOptions, blocking: any BlockingWorkRunner, clock: any BrokerClock, logger: Logger) {
        self.options = options
        self.searchPool = LDAPConnectionPool(server: options.server, blocking: blocking)
        self.bindPool = LDAPConnectionPool(server: options.server, blocking: blocking)
        self.clock = clock
        self.logger = logger
    }

    func login(_ credentials: PasswordCredentials) async throws -> LoginResult {
        let username = credentials.username, password = credentials.password
        // An empty password would be an unauthenticated bind, which "succeeds" (RFC 4513 §5.1.2).
        guard !password.isEmpty, password.utf8.count <= Self.maxPasswordBytes, Self.acceptable(username) else {
            return .rejected(LoginRejection(.invalidCredentials))
        }
        do {
            let verdict: Verdict = switch options.kind {
            case .ldap: try await ldapLogin(username: username, password: password)
            case .activeDirectory: try await activeDirectoryLogin(username: username, password: password)
            }
            switch verdict {
            case .rejected(let rejection): return .rejected(rejection)
            case .found(let entry, let groups): return .authenticated(identity(entry, groups: groups, typed: username))
            }
        } catch {
            throw failure(error)
        }
    }

    /// AD accepts `CORP\alice`, `alice@corp.example.org` and `alice` for one account: failed
    /// attempts count against the account name, whichever spelling was typed.
    func accountName(for username: String) -> String {
        guard options.kind == .activeDirectory else { return username }
        if let slash = username.lastIndex(of: "\\") { return String(username[username.index(after: slash)...]) }
        if let at = username.firstIndex(of: "@") { return String(username[..<at]) }
        return username
    }

    /// docs/connectors/ldap.md, "Sessions: the re-check": re-checks the account with the service
    /// bind once the upstream TTL has run out. A deleted (or, on AD, disabled) account ends the
    /// session.
    func refresh(userId: String, upstream: UpstreamToken) async throws -> RefreshOutcome {
        guard options.service != nil, let dn = upstream.extra["dn"] else {
            return .ended(reason: "The directory sign-in cannot be re-checked; sign in again.")
        }
        do {
            let filter = recheckFilter(username: upstream.extra["username"] ?? userId)
            let found = try await withService { [self] handle -> Verdict? in
                guard let entry = try findUsers(handle, base: dn, scope: .base, filter: filter).first else { return nil }
                let groups = try groupNames(handle, entry: entry, username: entry.first(options.userIdAttribute) ?? userId)
                return .found(entry, groups: groups)
            }
            guard case .found(let entry, let groups) = found else {
                return .ended(reason: "The account no longer exists in the directory or no longer matches its userFilter.")
            }
            if options.kind == .activeDirectory && ActiveDirectory.isDisabled(entry) {
                return .ended(reason: "The account has been disabled in the directory.")
            }
            let identity = identity(entry, groups: groups, typed: userId)
            return .refreshed(identity.upstream ?? upstream, attributes: identity.attributes)
        } catch {
            throw failure(error)
        }
    }

    /// The re-check reads the stored DN with the sign-in's own conditions, so an account that a
    /// site disables through `userFilter` (e.g. `(!(nsAccountLock=TRUE))`) ends its sessions too.
    func recheckFilter(username: String) -> String {
        switch options.kind {
        case .activeDirectory:
            return "(&(objectClass=user)\(options.userFilter))"
        case .ldap:
            guard !options.userFilter.isEmpty else { return "(objectClass=*)" }
            return LDAPEscaping.fill(options.userFilter, ["username": LDAPEscaping.filterValue(username)])
        }
    }

    enum Verdict: Sendable {
        case found(LDAPEntry, groups: [String])
        case rejected(LoginRejection)
    }

    /// Thrown when the service account itself is refused: a configuration problem, not the user's.
    struct ServiceBindRefused: Error {
        let underlying: LDAPError
    }

    // MARK: - shared steps

    /// Runs `body` on a pooled connection bound as the service account.
    func withService<T: Sendable>(_ body: @escaping @Sendable (LDAPHandle) throws -> T) async throws -> T {
        guard let service = options.service else {
            throw ConnectorFailure(.invalidResponse, "No service account is configured for this directory.")
        }
        return try await searchPool.withConnection { handle in
            do {
                try handle.ensureBound(service)
            } catch let error as LDAPError where !error.isConnectionProblem {
                throw ServiceBindRefused(underlying: error)
            }
            return try body(handle)
        }
    }

    /// Searches for user entries with every attribute the connector maps.
    func findUsers(_ handle: LDAPHandle, base: String, scope: LDAPScope, filter: String) throws -> [LDAPEntry] {
        try handle.search(base: base, scope: scope, filter: filter, attributes: options.userAttributes,
                          sizeLimit: 2, timeoutMs: options.server.operationTimeoutMs)
    }

    /// Group names: the first RDN value of each `memberOf` DN, plus what the group search finds.
    func groupNames(_ handle: LDAPHandle, entry: LDAPEntry, username: String) throws -> [String] {
        var names: [String] = []
        if let memberOf = options.memberOfAttribute {
            names += entry.values(memberOf).compactMap(LDAPEscaping.firstRDNValue)
        }
        if let search = groupSearch(for: entry, username: username) {
            let attribute = options.groupNameAttribute
            let found = try handle.search(base: search.base, scope: .subtree, filter: search.filter, attributes: [attribute],
                                          sizeLimit: 1000, timeoutMs: options.server.operationTimeoutMs)
            names += found.compactMap { $0.first(attribute) }
        }
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    /// The group search to run for `entry`, if any: nested AD groups, or `groupBaseDn` + `groupFilter`.
    func groupSearch(for entry: LDAPEntry, username: String) -> (base: String, filter: String)? {
        if options.kind == .activeDirectory && options.nestedGroups, let base = options.groupBaseDn ?? options.baseDn {
            return (base, ActiveDirectory.nestedGroupFilter(userDN: entry.dn))
        }
        guard let base = options.groupBaseDn else { return nil }
        let filter = LDAPEscaping.fill(options.groupFilter, ["dn": LDAPEscaping.filterValue(entry.dn),
                                                             "username": LDAPEscaping.filterValue(username)])
        return (base, filter)
    }

    /// What the broker keeps about the user: id, mapped attributes, groups, and the DN as the
    /// upstream token, due for a re-check after `recheckInterval` when a service account exists.
    func identity(_ entry: LDAPEntry, groups: [String], typed username: String) -> ConnectorIdentity {
        var attributes: [String: JSONValue] = [:]
        for (claim, attribute) in options.attributeMap {
            if let value = entry.first(attribute) { attributes[claim] = .string(value) }
        }
        attributes["groups"] = .array(groups.map { .string($0) })
        let expiry = options.service == nil ? nil : clock.now().addingTimeInterval(TimeInterval(options.recheckInterval))
        let upstream = UpstreamToken(token: entry.dn, expiresAt: expiry, extra: ["dn": entry.dn, "username": username])
        return ConnectorIdentity(userId: entry.first(options.userIdAttribute) ?? username, attributes: attributes, upstream: upstream)
    }

    /// Outages become `temporarily_unavailable`; a refused service account or anything else `server_error`.
    func failure(_ error: any Error) -> any Error {
        switch error {
        case let failure as ConnectorFailure:
            return failure
        case let refused as ServiceBindRefused:
            logger.error("directory refused the service account", metadata: ["error": "\(refused.underlying)"])
            return ConnectorFailure(.invalidResponse, "The directory refused the broker's service account.",
                                    debug: refused.underlying.description)
        case let ldap as LDAPError where ldap.isConnectionProblem:
            return ConnectorFailure(.unavailable, "The directory is unavailable; try again shortly.", debug: ldap.description)
        case let ldap as LDAPError:
            return ConnectorFailure(.invalidResponse, "The directory answered with an error.", debug: ldap.description)
        default:
            return error
        }
    }

    /// Usernames that can be looked up at all: not empty, not huge, no control characters.
    static func acceptable(_ username: String) -> Bool {
        guard !username.isEmpty, username.utf8.count <= maxUsernameBytes else { return false }
        return !username.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
