import Foundation
import HummingbirdTesting
import Testing

/// docs/security.md: redirect URIs match the registered ones exactly, byte for byte (RFC 6749
/// §3.1.2.3 simple string comparison). Swift's `==` on strings treats canonically equivalent
/// Unicode as equal, so a comparison written with it let an unregistered URI through.
@Suite("Security: redirect URIs match byte for byte")
struct RedirectURIExactMatchTests {
    static let precomposed = "https://app.example.com/caf\u{E9}"
    static let decomposed = "https://app.example.com/cafe\u{301}"

    @Test("a canonically equivalent but different redirect URI is refused at /oauth/auth; the registered one works")
    func canonicalEquivalenceIsNotEquality() async throws {
        #expect(Self.precomposed == Self.decomposed, "Swift's == is the trap this test guards against")
        var files = TestBroker.defaultConfig()
        files["environments/test.yaml"] = files["environments/test.yaml"]!.replacingOccurrences(of: TestBroker.redirect, with: Self.precomposed)
        let broker = try await TestBroker.make(files: files)
        try await broker.withClient { client in
            func authorize(_ redirect: String) async throws -> TestResponse {
                try await client.get("/oauth/auth?" + formEncode([("client_id", TestBroker.appKey), ("redirect_uri", redirect),
                                                                  ("response_type", "code"), ("code_challenge", Flows.challenge),
                                                                  ("code_challenge_method", "S256")]))
            }
            let registered = try await authorize(Self.precomposed)
            #expect(registered.status == .ok)
            let lookalike = try await authorize(Self.decomposed)
            #expect(lookalike.status == .badRequest)
            #expect(lookalike.location == nil)
            #expect(lookalike.text.contains("not registered"))
        }
    }
}
