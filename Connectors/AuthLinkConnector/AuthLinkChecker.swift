import ConnectorHTTP
import Foundation
import IdentityCore

/// Calls an AuthLink the way the broker would and says, case by case, whether its answers follow
/// docs/connectors/authlink.md, "Checking an AuthLink" (`idconnect authlink check`).
public struct AuthLinkChecker: Sendable {
    public struct Case: Sendable {
        public var name: String
        public var passed: Bool
        public var detail: String
        public var milliseconds: Int
    }

    let loginURL: String
    let refreshURL: String?
    let sharedSecret: String?
    let http: UpstreamHTTP

    public init(loginURL: String, refreshURL: String? = nil, sharedSecret: String? = nil, timeout: Int = 15) {
        self.loginURL = loginURL
        self.refreshURL = refreshURL
        self.sharedSecret = sharedSecret
        self.http = UpstreamHTTP(timeout: .seconds(Int64(timeout)))
    }

    private var headers: [(String, String)] { sharedSecret.map { [("X-Auth-Key", $0)] } ?? [] }

    /// Runs every case; the good credentials must belong to a real account. When the AuthLink
    /// answers them with a challenge (docs/mfa.md), `challengeResponse` (if given) is sent as the
    /// answer, which must then be accepted; a wrong answer must be refused or asked again.
    public func run(username: String, password: String, challengeResponse: String? = nil) async -> [Case] {
        var cases: [Case] = []
        var (good, goodCase) = await call("sign-in with the given credentials answers 200 authenticated (or a challenge)",
                                          loginURL, ["username": username, "password": password]) { answer in
            if case .challenge(let message, let state, let input) = answer {
                return (true, "a challenge: \"\(message)\" (input \(input), state of \(state.utf8.count) bytes)")
            }
            guard case .authenticated(let token, let refresh, let expiresIn, let extra) = answer else { return (false, Self.describe(answer)) }
            var facts = ["token of \(token.count) characters"]
            facts.append(refresh == nil ? "no refresh_token" : "refresh_token")
            facts.append(expiresIn.map { "expires_in \(Int($0)) s" } ?? "no expires_in (never refreshed)")
            if !extra.isEmpty { facts.append("attributes: \(extra.keys.sorted().joined(separator: ", "))") }
            return (true, facts.joined(separator: "; "))
        }
        cases.append(goodCase)
        let suffix = "-" + Secrets.randomToken(bytes: 6)
        if case .challenge(_, let state, _)? = good {
            let (_, wrongAnswer) = await call("a wrong challenge answer is refused (401) or asked again", loginURL,
                                              ["username": username, "challenge_state": state, "response": "wrong" + suffix]) { answer in
                switch answer {
                case .denied, .challenge: return (true, Self.describe(answer))
                default: return (false, Self.describe(answer) + " — a wrong answer must be 401 access_denied or another challenge")
                }
            }
            cases.append(wrongAnswer)
            if let challengeResponse {
                // A fresh challenge: the wrong answer may have used the first one up.
                let (again, _) = await call("", loginURL, ["username": username, "password": password]) { _ in (true, "") }
                if case .challenge(_, let fresh, _)? = again {
                    let (answered, answeredCase) = await call("the challenge answer given answers 200 authenticated", loginURL,
                                                              ["username": username, "challenge_state": fresh, "response": challengeResponse]) { answer in
                        if case .authenticated = answer { return (true, Self.describe(answer)) }
                        return (false, Self.describe(answer))
                    }
                    cases.append(answeredCase)
                    good = answered
                }
            }
        }
        let (wrong, wrongCase) = await call("a wrong password answers 401 access_denied", loginURL,
                                            ["username": username, "password": password + suffix]) { answer in
            if case .denied = answer { return (true, Self.describe(answer)) }
            return (false, Self.describe(answer) + " — wrong credentials must be 401 with no authError or error access_denied")
        }
        cases.append(wrongCase)
        let (_, unknownCase) = await call("an unknown user answers like a wrong password", loginURL,
                                          ["username": "no-such-user" + suffix, "password": password]) { answer in
            guard case .denied(let description) = answer else { return (false, Self.describe(answer)) }
            if case .denied(let wrongDescription)? = wrong, wrongDescription != description {
                return (false, "the message differs from a wrong password's, which tells callers which usernames exist")
            }
            return (true, Self.describe(answer))
        }
        cases.append(unknownCase)
        cases.append(await malformedCase())
        if let refreshURL {
            if case .authenticated(let token, let refresh, let expiresIn, _)? = good, refresh != nil || expiresIn != nil {
                let (_, refreshCase) = await call("refresh answers 200 authenticated", refreshURL,
                                                  ["refresh_token": refresh ?? token, "grant_type": "refresh_token"]) { answer in
                    if case .authenticated = answer { return (true, Self.describe(answer)) }
                    return (false, Self.describe(answer))
                }
                cases.append(refreshCase)
            }
            let (_, bogusCase) = await call("refresh with an unknown token answers 401", refreshURL,
                                            ["refresh_token": "bogus" + suffix, "grant_type": "refresh_token"]) { answer in
                if case .denied = answer { return (true, Self.describe(answer)) }
                return (false, Self.describe(answer) + " — a refresh the AuthLink refuses must be 401, which ends the session")
            }
            cases.append(bogusCase)
        }
        return cases
    }

    private func malformedCase() async -> Case {
        let start = ContinuousClock.now
        do {
            let answer = try await http.post(loginURL, body: Data("{}".utf8), contentType: "application/json", headers: headers, what: "AuthLink")
            let ok = (400...499).contains(answer.status) && answer.status != 200
            return Case(name: "a call without username and password answers 4xx", passed: ok,
                        detail: "HTTP \(answer.status)" + (ok ? "" : " — it must never be 200 or 5xx"), milliseconds: Self.ms(since: start))
        } catch {
            return Case(name: "a call without username and password answers 4xx", passed: false, detail: "\(error)", milliseconds: Self.ms(since: start))
        }
    }

    private func call(_ name: String, _ url: String, _ body: [String: String],
                      judge: (AuthLinkAnswer) -> (Bool, String)) async -> (AuthLinkAnswer?, Case) {
        let start = ContinuousClock.now
        do {
            let answer = try await http.postJSON(url, body, headers: headers, what: "AuthLink")
            let read = AuthLinkAnswer.read(status: answer.status, body: answer.body)
            var (passed, detail) = judge(read)
            if !answer.contentType.hasPrefix("application/json") && !answer.body.isEmpty {
                detail += " (note: Content-Type is '\(answer.contentType)', expected application/json)"
            }
            return (read, Case(name: name, passed: passed, detail: "HTTP \(answer.status): \(detail)", milliseconds: Self.ms(since: start)))
        } catch {
            return (nil, Case(name: name, passed: false, detail: "\(error)", milliseconds: Self.ms(since: start)))
        }
    }

    static func describe(_ answer: AuthLinkAnswer) -> String {
        switch answer {
        case .authenticated: "authenticated"
        case .denied(let description): "access_denied" + (description.map { " (\($0))" } ?? "")
        case .challenge(let message, _, let input): "challenge (\(input)): \(message)"
        case .unavailable(let description): "temporarily_unavailable" + (description.map { " (\($0))" } ?? "")
        case .serverError(let description): "server_error" + (description.map { " (\($0))" } ?? "")
        case .violation(let reason): "contract violation: \(reason)"
        }
    }

    static func ms(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
