import AuthLinkKit
import Foundation
import IdentityCore
import Synchronization

/// The sample AuthLink's users and the tokens it handed out. Users come from a JSON file:
///
/// ```json
/// { "tokenLifetime": 3600,
///   "users": [ { "username": "alice", "password": "alicepw", "email": "alice@example.org", "groups": ["staff"] } ] }
/// ```
///
/// Passwords are in clear because this is a demonstration of the protocol, not a directory.
final class SampleDirectory: Sendable {
    struct User: Sendable {
        var password: String
        var attributes: [String: JSONValue]
    }

    let users: [String: User]
    let tokenLifetime: Int
    /// refresh token → username; rotated on every refresh.
    private let refreshTokens = Mutex<[String: String]>([:])

    init(file: String) throws {
        guard let data = FileManager.default.contents(atPath: file),
              case .object(let root) = JSONValue(parsing: data),
              case .array(let list)? = root["users"] else {
            throw SampleError("\(file) must be a JSON object with a \"users\" list")
        }
        var users: [String: User] = [:]
        for entry in list {
            guard case .object(var fields) = entry, let username = fields.removeValue(forKey: "username")?.stringValue,
                  let password = fields.removeValue(forKey: "password")?.stringValue else {
                throw SampleError("every user needs a username and a password")
            }
            users[username] = User(password: password, attributes: fields)
        }
        self.users = users
        if case .int(let lifetime)? = root["tokenLifetime"], lifetime > 0 { tokenLifetime = Int(lifetime) } else { tokenLifetime = 3600 }
    }

    func login(_ login: AuthLinkLogin) -> AuthLinkResult {
        guard let user = users[login.username], Self.equal(user.password, login.password) else {
            return .denied("The username or password is incorrect.")
        }
        return issue(for: login.username, attributes: user.attributes)
    }

    func refresh(_ token: String) -> AuthLinkResult {
        guard let username = refreshTokens.withLock({ $0.removeValue(forKey: token) }), let user = users[username] else {
            return .denied("The session has ended.")
        }
        return issue(for: username, attributes: user.attributes)
    }

    private func issue(for username: String, attributes: [String: JSONValue]) -> AuthLinkResult {
        let refresh = Secrets.randomToken()
        refreshTokens.withLock { $0[refresh] = username }
        return .authenticated(token: "sample-" + Secrets.randomToken(bytes: 24), refreshToken: refresh,
                              expiresIn: tokenLifetime, attributes: attributes)
    }

    static func equal(_ a: String, _ b: String) -> Bool { Secrets.constantTimeEquals(a, b) }
}

struct SampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
