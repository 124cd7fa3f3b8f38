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
///
/// A user with an `"sms"` number is asked for a code "sent by SMS" after the password: the code is
/// printed to this process's output instead (docs/mfa.md, "AuthLink challenges"). An app in API
/// mode sends the code as `otp` with the password once it has read it.
final class SampleDirectory: Sendable {
    struct User: Sendable {
        var password: String
        var attributes: [String: JSONValue]
    }

    let users: [String: User]
    let tokenLifetime: Int
    /// refresh token → username; rotated on every refresh.
    private let refreshTokens = Mutex<[String: String]>([:])
    /// Codes sent by "SMS": challenge state → (username, code, expiry).
    private let challenges = Mutex<[String: (username: String, code: String, expires: Date)]>([:])
    /// Where the "SMS" goes.
    let send: @Sendable (String) -> Void

    init(file: String, send: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }) throws {
        self.send = send
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
        guard case .string(let phone)? = user.attributes["sms"] else { return issue(for: login.username, attributes: user.attributes) }
        if let otp = login.otp, takeCode(username: login.username, matching: otp) {
            return issue(for: login.username, attributes: user.attributes)
        }
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        let state = Secrets.randomToken(bytes: 18)
        challenges.withLock { entries in
            entries = entries.filter { $0.value.expires > Date() }
            entries[state] = (login.username, code, Date().addingTimeInterval(300))
        }
        send("authlink-sample: SMS to \(phone) for \(login.username): your sign-in code is \(code)")
        return .challenge(message: "We sent a code by SMS to the number ending \(phone.suffix(4)). Enter it to continue.",
                          state: state, input: "otp")
    }

    /// The answer to a challenge: the code sent for that state.
    func answer(_ answer: AuthLinkChallengeAnswer) -> AuthLinkResult {
        let entry = challenges.withLock { $0[answer.state] }
        guard let entry, entry.username == answer.username, entry.expires > Date() else {
            return .denied("The code has expired. Sign in again.")
        }
        guard Self.equal(entry.code, answer.response.trimmingCharacters(in: .whitespaces)), let user = users[entry.username] else {
            return .denied("The code is not correct.")
        }
        challenges.withLock { _ = $0.removeValue(forKey: answer.state) }
        return issue(for: entry.username, attributes: user.attributes)
    }

    /// Uses the latest code sent to `username` if it matches (API mode sends it with the password).
    private func takeCode(username: String, matching otp: String) -> Bool {
        challenges.withLock { entries in
            guard let (state, _) = entries.first(where: { $0.value.username == username && $0.value.expires > Date()
                && Self.equal($0.value.code, otp) }) else { return false }
            entries.removeValue(forKey: state)
            return true
        }
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
                              expiresIn: tokenLifetime, attributes: attributes.filter { $0.key != "sms" })
    }

    static func equal(_ a: String, _ b: String) -> Bool { Secrets.constantTimeEquals(a, b) }
}

struct SampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
