import Foundation
import IdentityCore
import StoreContracts
import Testing

/// Registered mobile app instances (docs/protocol.md, "Mobile app instances"): updated by
/// compare-and-swap on their registration token, bound to their first user, looked up by web origin.
extension StoreConformance {
    static func registeredClients(_ roles: StoreRoles) async throws {
        let (clients, now) = (roles.registeredClients, StoreFixtures.now)
        let first = StoreFixtures.instance("dyn~CSI~1")
        try await clients.insertRegisteredClient(first)
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~2", created: 5))
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~3", appKey: "other"))
        #expect(try await clients.registeredClient(id: "dyn~CSI~1") == first)
        #expect(try await clients.registeredClient(id: "dyn~CSI~9") == nil)
        #expect(try await clients.registeredClients(appKey: "kid").map(\.clientId) == ["dyn~CSI~1", "dyn~CSI~2"])
        var changed = first
        changed.redirectURIs = ["com.example.app:/other"]
        changed.registrationTokenHash = Secrets.hash("rat-next")
        // Compare-and-swap on the registration token: the old hash wins once, then it is stale.
        #expect(try await clients.updateRegisteredClient(changed, expectedTokenHash: first.registrationTokenHash))
        #expect(try await !clients.updateRegisteredClient(changed, expectedTokenHash: first.registrationTokenHash))
        #expect(try await clients.registeredClient(id: "dyn~CSI~1")?.redirectURIs == ["com.example.app:/other"])
        #expect(try await clients.registeredClient(id: "dyn~CSI~1")?.registrationTokenHash == Secrets.hash("rat-next"))
        // An update made from a copy read before the first sign-in keeps the binding.
        #expect(try await clients.bindRegisteredClient(id: "dyn~CSI~1", subject: "alice", sessionId: "s1", at: now))
        var stale = changed
        stale.deviceType = "ipad"
        stale.registrationTokenHash = Secrets.hash("rat-third")
        #expect(try await clients.updateRegisteredClient(stale, expectedTokenHash: Secrets.hash("rat-next")))
        let afterRace = try #require(try await clients.registeredClient(id: "dyn~CSI~1"))
        #expect(afterRace.deviceType == "ipad" && afterRace.boundSubject == "alice" && afterRace.sessionId == "s1")
        try await clients.unbindRegisteredClientSession(id: "dyn~CSI~1")
        let signedOut = try #require(try await clients.registeredClient(id: "dyn~CSI~1"))
        #expect(signedOut.sessionId == nil && signedOut.boundSubject == "alice")
        #expect(try await clients.deleteRegisteredClient(id: "dyn~CSI~1"))
        #expect(try await !clients.deleteRegisteredClient(id: "dyn~CSI~1"))
        #expect(try await !clients.updateRegisteredClient(stale, expectedTokenHash: Secrets.hash("rat-third")))
        #expect(try await clients.registeredClient(id: "dyn~CSI~1") == nil)
    }

    static func registeredClientWebOrigins(_ roles: StoreRoles) async throws {
        let clients = roles.registeredClients
        var web = StoreFixtures.instance("dyn~CSI~w")
        web.redirectURIs = ["com.example.app:/cb", "https://pwa.example.com/cb"]
        web.webOrigins = ["capacitor://localhost", "+"]
        try await clients.insertRegisteredClient(web)
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~plain"))
        #expect(try await clients.registeredClient(id: "dyn~CSI~w")?.webOrigins == ["capacitor://localhost", "+"])
        #expect(try await clients.registeredClientListsWebOrigin("capacitor://localhost"))
        #expect(try await clients.registeredClientListsWebOrigin("https://pwa.example.com"))
        #expect(try await !clients.registeredClientListsWebOrigin("https://other.example.com"))
        // `+` follows the redirect URIs an update leaves.
        var narrowed = web
        narrowed.redirectURIs = ["com.example.app:/cb"]
        narrowed.registrationTokenHash = Secrets.hash("rat-w2")
        #expect(try await clients.updateRegisteredClient(narrowed, expectedTokenHash: web.registrationTokenHash))
        #expect(try await !clients.registeredClientListsWebOrigin("https://pwa.example.com"))
        #expect(try await clients.registeredClientListsWebOrigin("capacitor://localhost"))
        #expect(try await clients.deleteRegisteredClient(id: "dyn~CSI~w"))
        #expect(try await !clients.registeredClientListsWebOrigin("capacitor://localhost"))
        // An unbound instance purged an hour after registration takes its origins along.
        var young = StoreFixtures.instance("dyn~CSI~y")
        young.webOrigins = ["https://young.example.com"]
        try await clients.insertRegisteredClient(young)
        #expect(try await clients.registeredClientListsWebOrigin("https://young.example.com"))
        #expect(try await clients.purgeUnboundRegisteredClients(registeredBefore: StoreFixtures.now.addingTimeInterval(60)) == 2)
        #expect(try await !clients.registeredClientListsWebOrigin("https://young.example.com"))
    }

    static func registeredClientBinding(_ roles: StoreRoles) async throws {
        let (clients, now) = (roles.registeredClients, StoreFixtures.now)
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~a"))
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~b"))
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~c", created: 3000))
        try await clients.insertRegisteredClient(StoreFixtures.instance("dyn~CSI~d", created: -10))
        #expect(try await clients.bindRegisteredClient(id: "dyn~CSI~a", subject: "alice", sessionId: "s1", at: now))
        #expect(try await !clients.bindRegisteredClient(id: "dyn~CSI~a", subject: "bob", sessionId: "s2", at: now))
        #expect(try await clients.bindRegisteredClient(id: "dyn~CSI~a", subject: "alice", sessionId: "s3", at: now))
        #expect(try await !clients.bindRegisteredClient(id: "dyn~CSI~zz", subject: "alice", sessionId: "s1", at: now))
        let bound = try await clients.registeredClient(id: "dyn~CSI~a")
        #expect(bound?.boundSubject == "alice")
        #expect(bound?.sessionId == "s3")
        // The account page's devices: the instances bound to a user, oldest first.
        #expect(try await clients.bindRegisteredClient(id: "dyn~CSI~d", subject: "alice", sessionId: "s4", at: now))
        #expect(try await clients.registeredClients(boundTo: "alice").map(\.clientId) == ["dyn~CSI~d", "dyn~CSI~a"])
        #expect(try await clients.registeredClients(boundTo: "bob").isEmpty)
        // One hour after registration: b (unbound, old) goes, a (bound) and c (young) stay.
        #expect(try await clients.purgeUnboundRegisteredClients(registeredBefore: now.addingTimeInterval(60)) == 1)
        #expect(try await clients.registeredClient(id: "dyn~CSI~b") == nil)
        #expect(try await clients.registeredClient(id: "dyn~CSI~a") != nil)
        #expect(try await clients.registeredClient(id: "dyn~CSI~c") != nil)
    }
}
