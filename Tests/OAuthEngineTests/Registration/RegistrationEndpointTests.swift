import EngineTesting
import Foundation
import IdentityConfig
import IdentityCore
import JOSE
import OAuthEngine
import Testing

/// `RegistrationEndpoint` (RFC 7591, RFC 7592; docs/protocol.md, "Mobile app instances"): an
/// initial access token and a software statement of a trusted vendor register an instance; its
/// registration access token reads, updates (rotating itself) and deletes it, and deleting it
/// ends its tokens.
@Suite("RegistrationEndpoint")
struct RegistrationEndpointTests {
    static func fixture(server: ServerSettings = ServerSettings()) async throws -> EngineFixture {
        try await EngineFixture(environments: [EngineFixture.registeringEnvironment()], server: server)
    }

    @Test("a good token and statement register an instance of the environment, with the RFC 7591 answer")
    func registers() async throws {
        let fixture = try await Self.fixture()
        let instance = try await fixture.registerInstance(deviceType: "android")
        #expect(instance.client_id.hasPrefix("dyn~CSI~") && instance.client_secret != nil && instance.registration_access_token != nil)
        #expect(instance.registration_client_uri.hasPrefix("\(EngineFixture.issuer)/oauth/register/dyn~CSI~"))
        #expect(instance.redirect_uris == [EngineFixture.nativeRedirect] && instance.scope == "openid native")
        #expect(instance.device_type == "android" && instance.client_secret_expires_at == 0)
        #expect(instance.grant_types == ["authorization_code", "refresh_token", "client_credentials"])
    }

    @Test("what a registration must prove", arguments: [
        ("another initial access token", "invalid_token"),
        ("an unknown software_id", "unapproved_software_statement"),
        ("another vendor's key", "invalid_software_statement"),
        ("an expired statement", "invalid_software_statement"),
        ("the statement of another software_id", "invalid_software_statement"),
        ("a grant type instances cannot have", "invalid_software_statement"),
        ("a redirect URI the statement does not allow", "invalid_redirect_uri"),
        ("an unknown device type", "invalid_client_metadata"),
    ])
    func refusals(what: String, expected: String) async throws {
        let fixture = try await Self.fixture()
        let now = fixture.clock.now()
        var token = TestSoftware.initialAccessToken
        var statement = try TestSoftware.statement(expires: now + 600)
        var changes: [String: JSONValue] = [:]
        switch what {
        case "another initial access token": token = "not-the-initial-access-token"
        case "an unknown software_id": changes["software_id"] = .string("OTHER")
        case "another vendor's key": statement = try TestSoftware.statement(key: try SigningKey.generate(.es256), expires: now + 600)
        case "an expired statement": statement = try TestSoftware.statement(expires: now - 120)
        case "the statement of another software_id": statement = try TestSoftware.statement(expires: now + 600, claims: ["software_id": .string("OTHER")])
        case "a grant type instances cannot have":
            statement = try TestSoftware.statement(expires: now + 600, claims: ["grant_types": .array([.string("password")])])
        case "a redirect URI the statement does not allow": changes["redirect_uris"] = .array([.string("https://evil.example.com/cb")])
        default: changes["device_type"] = .string("toaster")
        }
        let sent = TestSoftware.body(statement).merging(changes) { $1 }
        #expect(await EngineFixture.errorCode {
            try await fixture.engine.registration.register(body: sent, initialAccessToken: token)
        } == expected)
    }

    @Test("registrations from one address are limited per minute (429)")
    func rateLimited() async throws {
        let fixture = try await Self.fixture(server: ServerSettings(rateLimits: RateLimits(registrationsPerMinute: 2)))
        let body = TestSoftware.body(try TestSoftware.statement(expires: fixture.clock.now() + 600))
        let register = {
            try await fixture.engine.registration.register(body: body, initialAccessToken: TestSoftware.initialAccessToken,
                                                           clientAddress: "203.0.113.9")
        }
        _ = try await register()
        _ = try await register()
        let refused = await #expect(throws: OAuthError.self) { try await register() }
        #expect(refused?.status == 429)
    }

    @Test("RFC 7592: each read or update answers with a new registration token and retires the one presented")
    func readAndUpdate() async throws {
        let fixture = try await Self.fixture()
        let instance = try await fixture.registerInstance()
        let registration = fixture.engine.registration
        let read = try await registration.read(clientId: instance.client_id, registrationToken: instance.registration_access_token)
        #expect(read.client_secret == nil && read.registration_access_token != instance.registration_access_token)
        #expect(await EngineFixture.errorCode {
            try await registration.read(clientId: instance.client_id, registrationToken: instance.registration_access_token)
        } == "invalid_token")
        let updated = try await registration.update(clientId: instance.client_id, registrationToken: read.registration_access_token,
                                                    body: ["device_type": .string("ipad")])
        #expect(updated.device_type == "ipad")
        for refused: [String: JSONValue] in [["client_id": .string("dyn~CSI~other")], ["registration_access_token": .string("x")],
                                             ["redirect_uris": .array([.string("https://evil.example.com/cb")])]] {
            #expect(await EngineFixture.errorCode {
                try await registration.update(clientId: instance.client_id, registrationToken: updated.registration_access_token, body: refused)
            } != nil)
        }
    }

    @Test("RFC 7592 delete removes the instance and ends its tokens")
    func deleteRevokes() async throws {
        let fixture = try await Self.fixture()
        let instance = try await fixture.registerInstance()
        let tokens = try await fixture.signIn(instance: instance)
        try await fixture.engine.registration.delete(clientId: instance.client_id, registrationToken: instance.registration_access_token)
        #expect(await EngineFixture.errorCode { try await fixture.engine.validation.validate(accessToken: tokens.access_token, basic: nil) }
            == "invalid_token")
        #expect(await EngineFixture.errorCode {
            try await fixture.refresh(tokens.refresh_token, clientId: instance.client_id, basic: EngineFixture.credentials(of: instance))
        } == "invalid_client")
        #expect(await EngineFixture.errorCode {
            try await fixture.engine.registration.read(clientId: instance.client_id, registrationToken: instance.registration_access_token)
        } == "invalid_token")
    }
}
