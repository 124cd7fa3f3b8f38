import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import OAuthEngine
import Testing

/// The device authorization grant's device side (RFC 8628 §3.1–3.5, docs/device-grant.md).
@Suite("DeviceCodeGrant")
struct DeviceCodeGrantTests {
    @Test("the device gets codes and URIs; polls answer authorization_pending, slow_down, then tokens once")
    func wholeFlow() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        #expect(started.userCode.count == 9 && started.userCode.dropFirst(4).first == "-")
        #expect(started.userCode.replacingOccurrences(of: "-", with: "").allSatisfy { "BCDFGHJKLMNPQRSTVWXZ".contains($0) })
        #expect(started.verificationURI == "\(EngineFixture.issuer)/oauth/device")
        #expect(started.verificationURIComplete.hasPrefix("\(EngineFixture.issuer)/oauth/device?user_code="))
        #expect(started.expiresIn == 600 && started.interval == 5)

        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")
        fixture.clock.advance(2)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "slow_down")
        fixture.clock.advance(6)
        // The interval grew to 10 s: 6 s later is still too soon.
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "slow_down")
        fixture.clock.advance(16)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "authorization_pending")

        var browser = BrowserContext(clientAddress: "192.0.2.7")
        let page = try await fixture.approveDevice(started.userCode, browser: &browser)
        #expect(page.finished?.signedIn == true)
        #expect(page.sso != nil)
        let tokens = try await fixture.poll(started.deviceCode)
        #expect(tokens.refresh_token != nil)
        #expect(EngineFixture.claims(tokens.id_token)["sub"] == EngineFixture.claims(try await fixture.passwordGrant().id_token)["sub"])
        #expect(Scopes.contains(tokens.scope, "profile"))
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "invalid_grant")
        // The refresh token works like any other.
        #expect(try await fixture.refresh(tokens.refresh_token).access_token.isEmpty == false)
    }

    @Test("only auth services with deviceGrant, and never app instances: unauthorized_client")
    func onlyAllowedClients() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        #expect(await EngineFixture.errorCode { try await fixture.startDevice(clientId: "\(EngineFixture.appKey).web") } == "unauthorized_client")
        #expect(await EngineFixture.errorCode { try await fixture.poll("any", clientId: "\(EngineFixture.appKey).web") } == "unauthorized_client")
        #expect(await EngineFixture.errorCode {
            try await fixture.startDevice(basic: BasicCredentials(user: EngineFixture.appKey, password: "wrong-secret"))
        } == "invalid_client")
        // Asked for with the secret: polled with it, or invalid_client; asked for without, polled either way.
        let confidential = try await fixture.startDevice()
        #expect(await EngineFixture.errorCode { try await fixture.poll(confidential.deviceCode, basic: nil) } == "invalid_client")
        #expect(await EngineFixture.errorCode { try await fixture.poll(confidential.deviceCode) } == "authorization_pending")
        let public_ = try await fixture.startDevice(basic: nil)
        #expect(await EngineFixture.errorCode { try await fixture.poll(public_.deviceCode, basic: nil) } == "authorization_pending")
    }

    @Test("a public client names itself; its device code is worth nothing to another client or as garbage")
    func publicClientsAndStrangers() async throws {
        let fixture = try await EngineFixture(environments: [
            EngineFixture.deviceEnvironment(appSecret: nil),
            EngineFixture.environment(appKey: "kid_other", services: [EngineFixture.service("tv") {
                $0.deviceGrant = DeviceGrantSettings()
            }]),
        ])
        let started = try await fixture.startDevice(basic: nil)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode, basic: nil) } == "authorization_pending")
        let other = BasicCredentials(user: "kid_other", password: EngineFixture.appSecret)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode, clientId: "kid_other", basic: other) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.poll("not-a-device-code", basic: nil) } == "invalid_grant")
        #expect(await EngineFixture.errorCode { try await fixture.poll(String(repeating: "x", count: 5000), basic: nil) } == "invalid_grant")
        #expect(await EngineFixture.errorCode {
            try await fixture.token([("grant_type", EngineFixture.deviceGrantType), ("client_id", EngineFixture.appKey)], basic: nil)
        } == "invalid_request")
    }

    @Test("after its lifetime the code is expired_token, on the device and on the page")
    func expiry() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        fixture.clock.advance(601)
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "expired_token")
        let page = await fixture.engine.deviceVerification.page(userCode: started.userCode, browser: BrowserContext())
        guard case .codeForm(let form, let status) = page.outcome else { throw UnexpectedOutcome("\(page.outcome)") }
        #expect(status == 400 && form.error?.english.contains("not valid") == true)
    }

    @Test("the user's session ending before the poll leaves the device without tokens")
    func sessionEnded() async throws {
        let fixture = try await EngineFixture(environments: [EngineFixture.deviceEnvironment()])
        let started = try await fixture.startDevice()
        var browser = BrowserContext()
        _ = try await fixture.approveDevice(started.userCode, browser: &browser)
        let sessions = try await fixture.storage.sessions.liveSessions(authServiceId: nil, user: nil, at: fixture.clock.now(), limit: 10)
        for session in sessions { try await fixture.storage.sessions.revokeSession(id: session.id, at: fixture.clock.now()) }
        #expect(await EngineFixture.errorCode { try await fixture.poll(started.deviceCode) } == "invalid_grant")
    }
}
