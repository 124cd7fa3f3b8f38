import AuthLinkConnector
import Foundation
import IdentityConfig
import OAuthEngine
import UserAgent

/// Redirect URIs, User-Agent headers and AuthLink answers: what clients and connectors send.
enum ClientInputFuzzing {
    /// Input: a registered URI, a NUL byte, a requested URI (one URI alone is compared with itself).
    static func redirectURI(_ data: Data) {
        let parts = data.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let registered = String(decoding: parts[0], as: UTF8.self)
        let requested = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : registered

        // Matching is byte for byte, whatever Unicode equivalence would say.
        require(RedirectURL.same(registered, requested) == (Array(registered.utf8) == Array(requested.utf8)),
                "redirect URI matching is not byte-exact")
        require(RedirectURL.isRegistered(requested, in: [registered]) == RedirectURL.same(registered, requested),
                "isRegistered disagrees with same")

        // What registration accepts has a scheme, no fragment, and is never javascript: or data:.
        if BrokerConfigReader.isValidRedirectURI(registered) {
            let scheme = registered.prefix { $0 != ":" }.lowercased()
            require(scheme != "javascript" && scheme != "data", "a \(scheme): redirect URI was accepted")
            require(!registered.utf8.contains(UInt8(ascii: "#")), "a redirect URI with a fragment was accepted")
        }

        // Parameters are appended after the registered URI, never into it: the base stays a prefix
        // and the values cannot add a fragment or another parameter.
        let built = RedirectURL.build(registered, [("state", requested), ("code", "c0de")])
        // Bytes, not Characters: a prepended concatenation mark (U+0600…) joins the next character.
        require(built.utf8.starts(with: registered.utf8), "the built URL does not start with the redirect URI")
        let appended = String(decoding: built.utf8.dropFirst(registered.utf8.count), as: UTF8.self)
        require(!appended.utf8.contains(UInt8(ascii: "#")), "an appended value added a fragment")
        require(appended.hasSuffix("&code=c0de"), "the code is not the last parameter as the Android SDK expects")
        require(appended.utf8.filter { $0 == UInt8(ascii: "&") }.count == (registered.utf8.contains(UInt8(ascii: "?")) ? 2 : 1),
                "a value added a parameter")
    }

    /// The parse is total and bounded: never traps, the same header reads the same way, and what
    /// it reports is printable text no longer than the header.
    static func userAgent(_ data: Data) {
        let header = String(decoding: data, as: UTF8.self)
        let agent = UserAgent(parsing: header)
        require(agent == UserAgent(parsing: header), "parsing the same header twice differs")
        for text in [agent.browser?.name, agent.browser?.version, agent.os?.name, agent.os?.version, agent.deviceName, agent.device] {
            guard let text else { continue }
            require(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control character reached the summary")
        }
    }

    /// The first byte picks the status (200, 401, a 5xx or another), the rest is the body.
    static func authLinkAnswer(_ data: Data) {
        guard let selector = data.first else { return }
        let status = [200, 401, 503, 302][Int(selector) % 4]
        let answer = AuthLinkAnswer.read(status: status, body: Data(data.dropFirst()))
        switch answer {
        case .authenticated(let token, _, let expiresIn, let extra):
            require(status == 200, "HTTP \(status) read as a sign-in")
            require(!token.isEmpty, "an empty token was accepted")
            if let expiresIn { require(expiresIn.isFinite && expiresIn > 0 && expiresIn <= AuthLinkAnswer.maxExpiresIn, "expires_in \(expiresIn) was accepted") }
            require(extra.keys.allSatisfy { !["authenticated", "token", "refresh_token", "expires_in"].contains($0) },
                    "a reserved field leaked into extra")
        case .challenge(_, let state, _):
            require(status == 200, "HTTP \(status) read as a challenge")
            require(!state.isEmpty, "a challenge without state was accepted")
        case .denied, .unavailable, .serverError, .violation:
            break
        }
    }
}
