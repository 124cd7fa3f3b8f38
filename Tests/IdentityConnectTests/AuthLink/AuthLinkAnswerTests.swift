import AuthLinkConnector
import Foundation
import Testing

/// How AuthLink answers read (docs/connectors/authlink.md, "The contract"), on hostile values.
@Suite("AuthLink answers: hostile expires_in values")
struct AuthLinkAnswerTests {
    static func expiresIn(_ json: String) -> AuthLinkAnswer {
        AuthLinkAnswer.read(status: 200, body: Data(#"{"authenticated":true,"token":"t","expires_in":\#(json)}"#.utf8))
    }

    @Test("infinite, NaN and absurd lifetimes never pass as a number the broker cannot add to a date")
    func absurdLifetimes() {
        // Found writing the authlink fuzz target: "1e400" parsed to +infinity and was accepted.
        for text in [#""1e400""#, #""inf""#, #""infinity""#, #""nan""#, #""-1""#, #""0""#] {
            if case .authenticated = Self.expiresIn(text) { Issue.record("expires_in \(text) was accepted") }
        }
        for huge in ["1e300", #""1e300""#, "9223372036854775807"] {
            guard case .authenticated(_, _, let value?, _) = Self.expiresIn(huge) else {
                Issue.record("expires_in \(huge) was refused")
                continue
            }
            #expect(value == AuthLinkAnswer.maxExpiresIn, "\(huge) → \(value)")
        }
        guard case .authenticated(_, _, let ordinary?, _) = Self.expiresIn("3600") else {
            Issue.record("3600 refused")
            return
        }
        #expect(ordinary == 3600)
    }
}
