import Foundation
import IdentityCore
import StaticConnector
import Synchronization

/// A user of the tests' `static` auth services: the password they type and what the identity
/// source says about them (docs/connectors/static.md).
public struct TestUser: Sendable {
    public var username: String
    public var password: String
    public var email: String?
    public var name: String?
    public var groups: [String]?

    public init(username: String, password: String, email: String? = nil, name: String? = nil, groups: [String]? = nil) {
        self.username = username
        self.password = password
        self.email = email
        self.name = name
        self.groups = groups
    }

    public static let alice = TestUser(username: "alice", password: "alicepw", email: "alice@example.org", name: "Alice",
                                       groups: ["admins", "staff"])
    public static let bob = TestUser(username: "bob", password: "bobpw")

    /// The PHC hash of the password at the minimum PBKDF2 cost (tests, not production), computed
    /// once per password in a test process.
    public var passwordHash: String { Self.hash(password) }

    private static let hashes = Mutex<[String: String]>([:])

    private static func hash(_ password: String) -> String {
        if let known = hashes.withLock({ $0[password] }) { return known }
        let made = try! PasswordHash.pbkdf2(password: password, iterations: PasswordHash.minimumIterations)
        return hashes.withLock { table in
            if let known = table[password] { return known }
            table[password] = made
            return made
        }
    }

    /// The user as an entry of a `static` connector's `options.users`.
    var staticEntry: JSONValue {
        var entry: [String: JSONValue] = ["username": .string(username), "passwordHash": .string(passwordHash)]
        if let email { entry["email"] = .string(email) }
        if let name { entry["name"] = .string(name) }
        if let groups { entry["groups"] = .array(groups.map { .string($0) }) }
        return .object(entry)
    }
}
