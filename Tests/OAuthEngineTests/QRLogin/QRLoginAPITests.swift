import EngineTesting
import Foundation
import IdentityCore
import OAuthEngine
import Testing

/// `QRLoginAPI`, the app's half of QR-code login (docs/qr-login.md, "Mobile API"): what the app
/// is shown, and the exact refusals Blitz apps expect, in the documented order.
@Suite("QRLoginAPI")
struct QRLoginAPITests {
    /// The status of what `body` throws, and its `desc` (security errors) or `error`.
    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as QRAPIError {
            let detail = error.body["type"] == .string("security_error") ? error.body["desc"] : error.body["error"]
            return "\(error.status) \(detail?.stringValue ?? "")"
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("info describes the browser asking: its address, the client, browser, system and device type")
    func info() async throws {
        let fixture = try await QRShowing.fixture()
        let showing = try await QRShowing(fixture)
        let info = try await fixture.engine.qrAPI.info(code: showing.code, bearer: try await QRShowing.appToken(fixture), acceptLanguage: nil)
        #expect(info["ip"] == .string("198.51.100.7") && info["rp_id"] == .string(EngineFixture.appKey))
        #expect(info["rp_name"] == .string("Test users") && info["browser"] == .string("Chrome 120"))
        #expect(info["os"] == .string("macOS 10.15.7") && info["device_type"] == .string("pc"))
        #expect(info["ip_country"] == nil)
    }

    @Test("a token that is missing, lacks the scope or belongs to another auth service is refused; the code is not spent")
    func tokens() async throws {
        let fixture = try await QRShowing.fixture()
        let code = try await QRShowing(fixture).code
        let api = fixture.engine.qrAPI
        #expect(await Self.refusal { try await api.confirm(code: code, bearer: nil, clientAddress: nil) } == "401 invalid_access_token")
        let plain = try await QRShowing.appToken(fixture, scope: "openid")
        #expect(await Self.refusal { try await api.confirm(code: code, bearer: plain, clientAddress: nil) } == "401 insufficient_scope")
        let opaque = try await QRShowing.appToken(fixture, clientId: "\(EngineFixture.appKey).opaque")
        #expect(await Self.refusal { try await api.confirm(code: code, bearer: opaque, clientAddress: nil) } == "403 wrong_auth_service")
        let good = try await QRShowing.appToken(fixture)
        fixture.clock.advance(601)
        #expect(await Self.refusal { try await api.confirm(code: code, bearer: good, clientAddress: nil) } == "401 expired_access_token")
    }

    @Test("an unknown code is 404, an answered one 409, an expired one 410; a refusal needs a known cause")
    func codes() async throws {
        let fixture = try await QRShowing.fixture()
        let api = fixture.engine.qrAPI
        let token = try await QRShowing.appToken(fixture)
        let code = try await QRShowing(fixture).code
        #expect(await Self.refusal { try await api.confirm(code: UUID().uuidString.lowercased(), bearer: token, clientAddress: nil) }
            == "404 qr_session_not_found")
        #expect(await Self.refusal {
            try await api.refuse(code: code, bearer: token, body: ["cause_id": .string("bored")], clientAddress: nil)
        } == "400 invalid_request")
        try await api.confirm(code: code, bearer: token, clientAddress: nil)
        #expect(await Self.refusal { try await api.confirm(code: code, bearer: token, clientAddress: nil) } == "409 qr_session_already_completed")
        let late = try await QRShowing(fixture).code
        fixture.clock.advance(60)
        #expect(await Self.refusal { try await api.confirm(code: late, bearer: token, clientAddress: nil) } == "410 qr_session_expired")
    }
}
