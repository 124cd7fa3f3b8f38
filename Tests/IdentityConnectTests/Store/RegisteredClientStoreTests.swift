import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Registered mobile app instances in every backend (part of the shared store suite).
extension StoreConformanceTests {
    static func instance(_ id: String, appKey: String = "kid", created: TimeInterval = 0) -> RegisteredClient {
        RegisteredClient(clientId: id, appKey: appKey, softwareId: "CSI", deviceType: "iphone",
                         redirectURIs: ["com.example.app:/cb"], scope: "openid native",
                         grantTypes: ["authorization_code", "client_credentials"],
                         secretHash: Secrets.hash("secret-\(id)"), registrationTokenHash: Secrets.hash("rat-\(id)"),
                         createdAt: now.addingTimeInterval(created))
    }

    @Test("registered instances: insert, read, list per environment, update, delete once", arguments: StoreBackend.allCases)
    func registeredClients(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        let first = Self.instance("dyn~CSI~1")
        try await store.insertRegisteredClient(first)
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~2", created: 5))
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~3", appKey: "other"))
        #expect(try await store.registeredClient(id: "dyn~CSI~1") == first)
        #expect(try await store.registeredClient(id: "dyn~CSI~9") == nil)
        #expect(try await store.registeredClients(appKey: "kid").map(\.clientId) == ["dyn~CSI~1", "dyn~CSI~2"])
        var changed = first
        changed.redirectURIs = ["com.example.app:/other"]
        changed.registrationTokenHash = Secrets.hash("rat-next")
        // Compare-and-swap on the registration token: the old hash wins once, then it is stale.
        #expect(try await store.updateRegisteredClient(changed, expectedTokenHash: first.registrationTokenHash))
        #expect(try await !store.updateRegisteredClient(changed, expectedTokenHash: first.registrationTokenHash))
        #expect(try await store.registeredClient(id: "dyn~CSI~1")?.redirectURIs == ["com.example.app:/other"])
        #expect(try await store.registeredClient(id: "dyn~CSI~1")?.registrationTokenHash == Secrets.hash("rat-next"))
        // An update made from a copy read before the first sign-in keeps the binding.
        #expect(try await store.bindRegisteredClient(id: "dyn~CSI~1", subject: "alice", sessionId: "s1", at: Self.now))
        var stale = changed
        stale.deviceType = "ipad"
        stale.registrationTokenHash = Secrets.hash("rat-third")
        #expect(try await store.updateRegisteredClient(stale, expectedTokenHash: Secrets.hash("rat-next")))
        let afterRace = try #require(try await store.registeredClient(id: "dyn~CSI~1"))
        #expect(afterRace.deviceType == "ipad" && afterRace.boundSubject == "alice" && afterRace.sessionId == "s1")
        try await store.unbindRegisteredClientSession(id: "dyn~CSI~1")
        let signedOut = try #require(try await store.registeredClient(id: "dyn~CSI~1"))
        #expect(signedOut.sessionId == nil && signedOut.boundSubject == "alice")
        #expect(try await store.deleteRegisteredClient(id: "dyn~CSI~1"))
        #expect(try await !store.deleteRegisteredClient(id: "dyn~CSI~1"))
        #expect(try await !store.updateRegisteredClient(stale, expectedTokenHash: Secrets.hash("rat-third")))
        #expect(try await store.registeredClient(id: "dyn~CSI~1") == nil)
        try await store.close()
    }

    @Test("registered instances: web origins are kept and looked up by origin, following updates, deletes and purges",
          arguments: StoreBackend.allCases)
    func registeredClientWebOrigins(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        var web = Self.instance("dyn~CSI~w")
        web.redirectURIs = ["com.example.app:/cb", "https://pwa.example.com/cb"]
        web.webOrigins = ["capacitor://localhost", "+"]
        try await store.insertRegisteredClient(web)
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~plain"))
        #expect(try await store.registeredClient(id: "dyn~CSI~w")?.webOrigins == ["capacitor://localhost", "+"])
        #expect(try await store.registeredClientListsWebOrigin("capacitor://localhost"))
        #expect(try await store.registeredClientListsWebOrigin("https://pwa.example.com"))
        #expect(try await !store.registeredClientListsWebOrigin("https://other.example.com"))
        // `+` follows the redirect URIs an update leaves.
        var narrowed = web
        narrowed.redirectURIs = ["com.example.app:/cb"]
        narrowed.registrationTokenHash = Secrets.hash("rat-w2")
        #expect(try await store.updateRegisteredClient(narrowed, expectedTokenHash: web.registrationTokenHash))
        #expect(try await !store.registeredClientListsWebOrigin("https://pwa.example.com"))
        #expect(try await store.registeredClientListsWebOrigin("capacitor://localhost"))
        #expect(try await store.deleteRegisteredClient(id: "dyn~CSI~w"))
        #expect(try await !store.registeredClientListsWebOrigin("capacitor://localhost"))
        // An unbound instance purged an hour after registration takes its origins along.
        var young = Self.instance("dyn~CSI~y")
        young.webOrigins = ["https://young.example.com"]
        try await store.insertRegisteredClient(young)
        #expect(try await store.registeredClientListsWebOrigin("https://young.example.com"))
        #expect(try await store.purgeUnboundRegisteredClients(registeredBefore: Self.now.addingTimeInterval(60)) == 2)
        #expect(try await !store.registeredClientListsWebOrigin("https://young.example.com"))
        try await store.close()
    }

    @Test("registered instances: first sign-in binds; another user cannot take it; unbound ones expire", arguments: StoreBackend.allCases)
    func registeredClientBinding(_ backend: StoreBackend) async throws {
        let store = try await backend.open()
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~a"))
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~b"))
        try await store.insertRegisteredClient(Self.instance("dyn~CSI~c", created: 3000))
        #expect(try await store.bindRegisteredClient(id: "dyn~CSI~a", subject: "alice", sessionId: "s1", at: Self.now))
        #expect(try await !store.bindRegisteredClient(id: "dyn~CSI~a", subject: "bob", sessionId: "s2", at: Self.now))
        #expect(try await store.bindRegisteredClient(id: "dyn~CSI~a", subject: "alice", sessionId: "s3", at: Self.now))
        #expect(try await !store.bindRegisteredClient(id: "dyn~CSI~zz", subject: "alice", sessionId: "s1", at: Self.now))
        let bound = try await store.registeredClient(id: "dyn~CSI~a")
        #expect(bound?.boundSubject == "alice")
        #expect(bound?.sessionId == "s3")
        // One hour after registration: b (unbound, old) goes, a (bound) and c (young) stay.
        #expect(try await store.purgeUnboundRegisteredClients(registeredBefore: Self.now.addingTimeInterval(60)) == 1)
        #expect(try await store.registeredClient(id: "dyn~CSI~b") == nil)
        #expect(try await store.registeredClient(id: "dyn~CSI~a") != nil)
        #expect(try await store.registeredClient(id: "dyn~CSI~c") != nil)
        try await store.close()
    }
}
