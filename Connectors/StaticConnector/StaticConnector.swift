import Foundation
import IdentityCore

/// One user of a `static` auth service.
struct StaticUser: Sendable {
    var username: String
    var passwordHash: PasswordHash
    var attributes: [String: JSONValue]
}

/// Users listed in the configuration (docs/connectors/static.md). For demos and tests.
///
/// Hash checks run on the blocking pool. Unknown usernames still pay for one hash check, so the
/// time taken does not tell which usernames exist.
final class StaticConnector: PasswordConnector {
    private let users: [String: StaticUser]
    private let decoy: PasswordHash
    private let blocking: any BlockingWorkRunner

    init(users: [StaticUser], blocking: any BlockingWorkRunner) {
        var byName: [String: StaticUser] = [:]
        for user in users { byName[user.username] = user }
        self.users = byName
        self.blocking = blocking
        // A decoy with the same cost as the first user's hash.
        self.decoy = users.first?.passwordHash ?? (try! PasswordHash(phc: "$pbkdf2-sha256$i=10000$c2FsdHNhbHQ$AAAAAAAAAAAAAAAAAAAAAA"))
    }

    func login(_ credentials: PasswordCredentials) async throws -> PasswordLoginResult {
        guard !credentials.password.isEmpty, !credentials.username.isEmpty else {
            return .rejected(LoginRejection(.invalidCredentials))
        }
        let user = users[credentials.username]
        let hash = user?.passwordHash ?? decoy
        let matches = try await blocking.run { hash.verify(credentials.password) }
        guard let user, matches else { return .rejected(LoginRejection(.invalidCredentials)) }
        return .authenticated(ConnectorIdentity(userId: user.username, attributes: user.attributes))
    }
}

/// Builds `static` connectors from `options.users`.
public struct StaticConnectorFactory: ConnectorFactory {
    public init() {}

    public var providerTypes: [String] { ["static"] }

    public func makeConnector(_ settings: ProviderSettings, context: ConnectorContext) throws -> any Connector {
        let problems = ProblemSink()
        guard let options = settings.options else {
            throw ConfigProblems([settings.problem("options", "static needs options.users")])
        }
        let reader = ConfigReader(options, problems: problems)
        var seen: Set<String> = []
        let users = reader.list("users", required: true) { user -> StaticUser? in
            let username = user.string("username", required: true)
            let hashText = user.string("passwordHash", required: true)
            var attributes: [String: JSONValue] = [:]
            let emailVerified = user.bool("emailVerified") ?? false
            if let email = user.string("email") {
                attributes["email"] = .string(email)
                // Configured addresses are not proven unless the operator says so.
                attributes["email_verified"] = .bool(emailVerified)
            }
            if let name = user.string("name") { attributes["name"] = .string(name) }
            if let groups = user.strings("groups") { attributes["groups"] = .array(groups.map { .string($0) }) }
            if let extra = user.stringMap("attributes") {
                for (key, value) in extra { attributes[key] = .string(value) }
            }
            guard let username, let hashText else { return nil }
            if !seen.insert(username).inserted { user.problem("username", "duplicate username '\(username)'") }
            do {
                return StaticUser(username: username, passwordHash: try PasswordHash(phc: hashText), attributes: attributes)
            } catch {
                user.problem("passwordHash", "\(error)")
                return nil
            }
        } ?? []
        reader.finish()
        if let authentication = settings.authentication {
            problems.add(authentication, "static does not use authentication")
        }
        try problems.throwIfAny()
        return StaticConnector(users: users, blocking: context.blocking)
    }
}
