import Foundation
import Hummingbird
import IdentityCore
import NIOCore

/// An AuthLink whose answer depends on the username (login) or refresh token (refresh), so one
/// server answers every shape docs/connectors/authlink.md, "The contract", names — and several it
/// forbids.
enum ScriptableAuthLink {
    static func router(log: CallLog) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("login") { request, _ in
            var request = request
            let data = Data(buffer: try await request.collectBody(upTo: 1 << 20))
            log.record(request, body: data)
            let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: String] ?? [:]
            if let state = fields["challenge_state"] { return challengeAnswer(state: state, response: fields["response"] ?? "") }
            return try await answer(for: fields["username"] ?? "", password: fields["password"] ?? "", otp: fields["otp"])
        }
        router.post("refresh") { request, _ in
            var request = request
            let data = Data(buffer: try await request.collectBody(upTo: 1 << 20))
            log.record(request, body: data)
            let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: String] ?? [:]
            let token = fields["refresh_token"] ?? ""
            if token.hasPrefix("refuse") { return json(401, #"{"authError":{"error":"access_denied","error_description":"Session revoked."}}"#) }
            if token.hasPrefix("fail") { return json(503, "") }
            let next = "refreshed-\(log.count(path: "/refresh"))"
            return json(200, #"{"authenticated":true,"token":"\#(next)","expires_in":120,"refresh_token":"rt-\#(next)"}"#)
        }
        return router
    }

    static func json(_ status: Int, _ body: String, contentType: String = "application/json") -> Response {
        Response(status: .init(code: status), headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// docs/mfa.md, "AuthLink challenges": `round-N` states; "424242" is the right code, "again"
    /// asks another question, anything else is refused.
    static func challengeAnswer(state: String, response: String) -> Response {
        guard state.hasPrefix("round-"), let round = Int(state.dropFirst(6)) else { return json(401, "") }
        switch response {
        case "424242": return json(200, #"{"authenticated":true,"token":"tok-challenge","email":"c@example.org"}"#)
        case "again": return challenge("One more code, please.", state: "round-\(round + 1)")
        default: return json(401, #"{"authError":{"error":"access_denied","error_description":"Wrong code."}}"#)
        }
    }

    static func challenge(_ message: String, state: String, input: String = "otp") -> Response {
        json(200, #"{"authenticated":false,"challenge":{"message":"\#(message)","state":"\#(state)","input":"\#(input)"}}"#)
    }

    static func answer(for username: String, password: String, otp: String? = nil) async throws -> Response {
        guard password == "pw" else { return json(401, "") }
        switch username {
        case "challenge":
            if otp == "424242" { return json(200, #"{"authenticated":true,"token":"tok-challenge"}"#) }
            return challenge("Enter the code we sent by SMS.", state: "round-1")
        case "bad-challenge": return json(200, #"{"authenticated":false,"challenge":{"message":"","state":"x"}}"#)
        case "ok": return json(200, #"{"authenticated":true,"token":"tok-ok","email":"ok@example.org","department":"R&D","secret_flag":"x"}"#)
        case "expiring": return json(200, #"{"authenticated":true,"token":"tok-expiring","expires_in":120,"refresh_token":"rt-1"}"#)
        case "self-refresh": return json(200, #"{"authenticated":true,"token":"tok-self","expires_in":120}"#)
        case "refuse-refresh": return json(200, #"{"authenticated":true,"token":"tok-r","expires_in":120,"refresh_token":"refuse-1"}"#)
        case "fail-refresh": return json(200, #"{"authenticated":true,"token":"tok-f","expires_in":120,"refresh_token":"fail-1"}"#)
        case "renamed": return json(200, #"{"authenticated":true,"token":"tok-r","id":"employee-42"}"#)
        case "denied-object": return json(401, #"{"authError":{"error":"access_denied","error_description":"Account is locked."}}"#)
        case "authError-string": return json(401, #"{"authError":"LDAP backend exploded"}"#)
        case "server-error": return json(401, #"{"authError":{"error":"server_error","error_description":"Backend bug."}}"#)
        case let name where name.hasPrefix("unavailable"): return json(401, #"{"authError":{"error":"temporarily_unavailable","error_description":"Mainframe batch window."}}"#)
        case "other-error": return json(401, #"{"authError":{"error":"weird_error"}}"#)
        case "not-authenticated": return json(200, #"{"authenticated":false}"#)
        case "no-token": return json(200, #"{"authenticated":true}"#)
        case "not-json": return json(200, "<html>hello</html>", contentType: "text/html")
        case "http-500": return json(500, "oops")
        case "http-404": return json(404, "")
        case "slow":
            try await Task.sleep(for: .seconds(10))
            return json(200, #"{"authenticated":true,"token":"late"}"#)
        case "slow-body":
            // The head arrives at once; the body stalls past the connector's timeout.
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init { writer in
                try await writer.write(ByteBuffer(string: #"{"authenticated":"#))
                try await Task.sleep(for: .seconds(10))
                try await writer.write(ByteBuffer(string: #"true,"token":"late"}"#))
                try await writer.finish(nil)
            })
        case "huge": return json(200, #"{"authenticated":true,"token":""# + String(repeating: "x", count: 2 << 20) + #""}"#)
        default: return json(401, "")
        }
    }
}
