import Foundation
import Hummingbird
import HummingbirdTesting
import OAuthEngine
import Testing

/// Second factors on the account page (docs/account.md, docs/mfa.md): the round trips, and the
/// sign-in again that adding or removing one needs after five minutes.
@Suite("Account page: second factors")
struct AccountFactorTests {
    static let optional = "\(MFAFixture.appKey).optional"

    @Test("authenticator app: set up with a code (recovery codes once), used by the API; after 5 minutes new codes need a new sign-in; remove")
    func authenticator() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let me = MFABrowser(client)
            var page = AccountPage(html: try await me.openAccount(Self.optional).text)
            #expect(page.hasFactorsSection && page.recoveryCodesLeft == "0 left")
            #expect(page.html.contains(#"id="setup-authenticator""#) && page.html.contains(#"id="add-passkey""#))

            let setup = try await me.get(AccountPaths.action("authenticator", Self.optional))
            #expect(setup.status == .ok && setup.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            let key = MFAPage(html: setup.text)
            #expect(key.html.contains(#"<img id="totp-qr" src="data:image/png;base64,"#))
            let sealed = try must(key.capture(#"name="setup" value="([^"]+)""#))
            let wrong = try await me.act("authenticator", Self.optional, AccountPage(html: setup.text), [("setup", sealed), ("otp", "000000")])
            #expect(wrong.status == .badRequest && MFAPage(html: wrong.text).error?.contains("does not match") == true)
            let forgedSetup = try await me.act("authenticator", Self.optional, AccountPage(html: setup.text), [("setup", "AAAA"), ("otp", "123456")])
            #expect(forgedSetup.status == .badRequest)
            let done = try await me.act("authenticator", Self.optional, AccountPage(html: setup.text),
                                        [("setup", sealed), ("otp", try key.code(at: broker.clock.now()))])
            page = AccountPage(html: done.text)
            #expect(done.status == .ok && page.notice?.hasPrefix("Authenticator app set up") == true)
            let firstCodes = page.recoveryCodes
            #expect(firstCodes.count == 10 && page.recoveryCodesLeft == "10 left")
            #expect(page.html.contains(#"id="remove-authenticator""#))

            broker.clock.advance(60)
            #expect(try await MFAFixture.passwordGrant(client, service: "optional").json["error"] as? String == "mfa_required")
            #expect(try await MFAFixture.passwordGrant(client, service: "optional", otp: try key.code(at: broker.clock.now())).status == .ok)

            // Five minutes on: new recovery codes ask for the password and the code again first.
            broker.clock.advance(300)
            page = AccountPage(html: try await me.get(AccountPaths.page(Self.optional)).text)
            #expect(page.html.contains("Adding or removing a second factor asks you to sign in again first."))
            let asked = try await me.act("recovery-codes", Self.optional, page)
            #expect(asked.status == .ok && asked.text.contains(#"name="password""#) && asked.text.contains(#"value="alice""#))
            let back = try await me.signInIfAsked(asked, otp: { try key.code(at: broker.clock.now()) })
            page = AccountPage(html: back.text)
            #expect(page.notice?.hasPrefix("You signed in again") == true, "\(back.text)")
            let renewed = AccountPage(html: try await me.act("recovery-codes", Self.optional, page).text)
            #expect(renewed.notice?.hasPrefix("New recovery codes made") == true && renewed.recoveryCodes.count == 10)
            #expect(Set(renewed.recoveryCodes).isDisjoint(with: firstCodes))
            let old = try await MFAFixture.passwordGrant(client, service: "optional", otp: firstCodes[0])
            #expect(old.json["error"] as? String == "access_denied", "the old codes stopped working")
            #expect(try await MFAFixture.passwordGrant(client, service: "optional", otp: renewed.recoveryCodes[0]).status == .ok)

            let removed = AccountPage(html: try await me.act("authenticator/remove", Self.optional, renewed).text)
            #expect(removed.notice?.contains("Authenticator app removed") == true && removed.notice?.contains("no second factor left") == true)
            #expect(removed.recoveryCodesLeft == "0 left", "recovery codes go with the last factor")
            #expect(try await MFAFixture.passwordGrant(client, service: "optional").status == .ok)
            #expect(try await me.act("authenticator/remove", Self.optional, removed).status == .badRequest, "nothing left to remove")
        }
    }

    @Test("passkeys: add one (recovery codes once), a replayed answer refused, rename, remove; after 5 minutes removing signs in again")
    func passkeys() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let me = MFABrowser(client)
            var page = AccountPage(html: try await me.openAccount(Self.optional).text)
            let adding = MFAPage(html: try await me.get(AccountPaths.action("passkeys/new", Self.optional)).text)
            #expect(adding.passkeyButton == "Create a passkey")
            let options = try MFAPasskeyTests.options(adding)
            #expect((options["rp"] as? [String: Any])?["id"] as? String == "localhost")
            let authenticator = SoftwareAuthenticator()
            let answer: [String: Any] = ["csrf_token": try must(page.csrfToken), "challenge": options["challenge"] as! String,
                                         "credential": try authenticator.register(options), "name": "Laptop"]
            let added = try await me.postJSON(AccountPaths.action("passkeys", Self.optional), answer)
            #expect(added.status == .ok)
            let next = try must(added.json["redirect"] as? String)
            #expect(queryItems(next)["notice"] == "passkey_added")
            page = AccountPage(html: try await me.get(next).text)
            #expect(page.notice == "Passkey added." && page.recoveryCodes.count == 10)
            #expect(page.passkeys.map(\.name) == ["Laptop"] && page.passkeys.first?.id == authenticator.credentialIdText)
            #expect(AccountPage(html: try await me.get(next).text).recoveryCodes.isEmpty, "shown once")
            let replayed = try await me.postJSON(AccountPaths.action("passkeys", Self.optional), answer)
            #expect(replayed.status == .badRequest && replayed.json["error"] != nil)
            let noToken = try await me.postJSON(AccountPaths.action("passkeys", Self.optional), ["challenge": "x"])
            #expect(noToken.status == .badRequest)

            let id = authenticator.credentialIdText
            page = AccountPage(html: try await me.act("passkeys/rename", Self.optional, page, [("passkey", id), ("name", "Work laptop")]).text)
            #expect(page.passkeys.map(\.name) == ["Work laptop"])
            #expect(try await me.act("passkeys/rename", Self.optional, page, [("passkey", id), ("name", " ")]).status == .badRequest)

            broker.clock.advance(400)
            page = AccountPage(html: try await me.get(AccountPaths.page(Self.optional)).text)
            let asked = try await me.act("passkeys/remove", Self.optional, page, [("passkey", id)])
            #expect(asked.text.contains(#"name="password""#), "a sign-in again first")
            #expect(AccountPage(html: try await me.get(AccountPaths.page(Self.optional)).text).passkeys.count == 1, "nothing removed yet")
            // The sign-in again asks for the passkey as the second factor.
            let form = try must(LoginFormFields(html: asked.text))
            let step = MFAPage(html: try await me.follow(try await me.post(form.action, [("csrf_token", form.csrfToken),
                                                                                      ("username", "alice"), ("password", "alicepw")])).text)
            #expect(step.passkeyButton == "Sign in with a passkey")
            var key = authenticator
            key.counter = 1
            let request = try MFAPasskeyTests.options(step)
            let signedIn = try await MFAPasskeyTests.post(me, step, credential: try key.assert(request), challenge: request["challenge"] as! String)
            let back = AccountPage(html: try await me.follow(try await me.get(try must(signedIn.json["redirect"] as? String))).text)
            #expect(back.notice?.hasPrefix("You signed in again") == true, "\(back.html)")
            let removed = AccountPage(html: try await me.act("passkeys/remove", Self.optional, back, [("passkey", id)]).text)
            #expect(removed.notice?.contains("Passkey “Work laptop” removed") == true && removed.passkeys.isEmpty)
            #expect(removed.recoveryCodesLeft == "0 left")
        }
    }

    @Test("mfa.mode off: no Second factors section, and the factor pages say so; mode required: the page's own sign-in enrols first")
    func modes() async throws {
        let broker = try await MFAFixture.make()
        try await broker.withClient { client in
            let off = MFABrowser(client)
            let page = AccountPage(html: try await off.openAccount(TestBroker.appKey).text)
            #expect(!page.hasFactorsSection && page.html.contains(">Devices</h2>"))
            let refused = try await off.get(AccountPaths.action("authenticator", TestBroker.appKey))
            #expect(refused.status == .badRequest && AccountPage(html: refused.text).error?.contains("does not use authenticator apps") == true)
            #expect(try await off.get(AccountPaths.action("passkeys/new", TestBroker.appKey)).status == .badRequest)

            // mode required, nothing enrolled: the sign-in to the account page enrols a factor first.
            let required = MFABrowser(client)
            let step = try await required.openAccount(MFAFixture.appKey)
            let enrol = MFAPage(html: step.text)
            #expect(enrol.totpSecret != nil, "the enrolment page of the second step")
            let confirmed = try await required.post(try must(enrol.action), [("csrf_token", try must(enrol.csrfToken)),
                                                                            ("otp", try enrol.code(at: broker.clock.now()))])
            let codes = MFAPage(html: try await required.follow(confirmed).text)
            #expect(codes.recoveryCodes.count == 10)
            let landed = try await required.follow(try await required.post(try must(codes.continueAction), [("csrf_token", try must(codes.csrfToken))]))
            let account = AccountPage(html: landed.text)
            #expect(landed.status == .ok && account.hasFactorsSection && account.recoveryCodesLeft == "10 left", "\(landed.text)")
        }
    }
}
