import Foundation
import HummingbirdTesting
import Testing

/// docs/protocol.md, "Throttling and rate limits": an attempt the identity source never answered
/// is not a password guess. Found by the soak run (scripts/soak.py): after a 20 s AuthLink outage
/// every user behind the load generator's address was held back for five minutes.
@Suite("Throttling: an identity-source outage spends nobody's attempts")
struct AuthLinkOutageThrottleTests {
    @Test("60 unanswered attempts from one address, 55 for one username: none throttled, and sign-ins work right after")
    func outageIsNotGuessing() async throws {
        try await TestHTTPServer.with(ScriptableAuthLink.router(log: CallLog())) { authLink in
            let broker = try await TestBroker.make(files: AuthLinkFixture.files(authLink: authLink, dataLink: "http://127.0.0.1:9"),
                                                   registry: AuthLinkFixture.registry)
            try await broker.withClient { client in
                for attempt in 0..<60 {
                    let response = try await AuthLinkFixture.signIn(client, attempt < 55 ? "unavailable" : "unavailable-\(attempt)")
                    #expect(response.status == .serviceUnavailable, "attempt \(attempt): \(response.status)")
                }
                #expect(try await AuthLinkFixture.signIn(client, "ok").status == .ok)
                // A wrong password is still counted: five refusals, then the username is held back.
                for _ in 0..<5 { #expect(try await AuthLinkFixture.signIn(client, "nobody").status != .tooManyRequests) }
                #expect(try await AuthLinkFixture.signIn(client, "nobody").status == .tooManyRequests)
            }
        }
    }
}
