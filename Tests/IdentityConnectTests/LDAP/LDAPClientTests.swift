import Foundation
import IdentityApp
import IdentityCore
import LDAPClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port that accepts connections (the kernel completes the handshake) but never answers:
/// a directory that hangs.
final class SilentListener {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}

/// The LDAPError `body` throws, `nil` when it succeeds or throws something else.
func ldapError(_ body: () async throws -> Void) async -> LDAPError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? LDAPError
    }
}

@Suite("LDAPClient: timeouts, pooling, bind and search on libldap")
struct LDAPClientTests {
    @Test("a directory that accepts but never answers fails as a connection problem within the operation timeout")
    func hangingDirectory() async throws {
        let listener = try SilentListener()
        let pool = LDAPConnectionPool(server: LDAPServer(url: "ldap://127.0.0.1:\(listener.port)", connectTimeoutMs: 500,
                                                         operationTimeoutMs: 700), blocking: OwnThreadRunner())
        let started = ContinuousClock.now
        let error = await ldapError { try await pool.withConnection { try $0.bind(LDAPCredentials(dn: "cn=x", password: "y")) } }
        #expect(error?.isConnectionProblem == true, "\(String(describing: error))")
        // The silent listener never answers, so without the timeouts this call would hang until the
        // runner is killed. The bound is loose on purpose: on a loaded 2-core CI machine the blocking
        // thread can start seconds late, and exact timing belongs in a benchmark, not a test.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("nothing listening: a connection problem at once")
    func refused() async throws {
        let pool = LDAPConnectionPool(server: LDAPServer(url: "ldap://127.0.0.1:9"), blocking: BlockingPool())
        let error = await ldapError { try await pool.withConnection { try $0.bind(LDAPCredentials(dn: "cn=x", password: "y")) } }
        #expect(error?.isConnectionProblem == true, "\(String(describing: error))")
    }

    @Test("an empty password is refused by the handle itself, never sent as an unauthenticated bind")
    func emptyPasswordRefused() async throws {
        let pool = LDAPConnectionPool(server: LDAPServer(url: "ldap://127.0.0.1:9"), blocking: BlockingPool())
        let error = await ldapError {
            try await pool.withConnection { try $0.bind(LDAPCredentials(dn: "uid=alice,ou=people,dc=example,dc=org", password: "")) }
        }
        #expect(error != nil && error?.isConnectionProblem == false && error?.isInvalidCredentials == false)
    }

    @Test("against slapd: bind, search with attributes, connections are reused, wrong password is code 49",
          .enabled(if: LDAPPeer.available, LDAPPeer.skipReason))
    func slapd() async throws {
        let pool = LDAPConnectionPool(server: LDAPServer(url: try #require(LDAPPeer.url), maxIdle: 2), blocking: BlockingPool())
        let service = LDAPCredentials(dn: "cn=readonly,dc=example,dc=org", password: "readonlypw")
        let entries = try await pool.withConnection { handle in
            try handle.ensureBound(service)
            return try handle.search(base: "ou=people,dc=example,dc=org", scope: .subtree, filter: "(uid=alice)",
                                     attributes: ["mail", "memberOf"], timeoutMs: 2000)
        }
        #expect(entries.count == 1)
        #expect(entries.first?.first("mail") == "alice@example.org")
        #expect(entries.first?.values("memberof").count == 2)
        #expect(pool.idleCount == 1)
        let bound = try await pool.withConnection { $0.boundDN }
        #expect(bound == service.dn)   // the same connection, still bound
        let wrong = await ldapError {
            try await pool.withConnection { try $0.bind(LDAPCredentials(dn: "uid=alice,ou=people,dc=example,dc=org", password: "nope")) }
        }
        #expect(wrong?.isInvalidCredentials == true)
        let missing = try await pool.withConnection { handle in
            try handle.search(base: "ou=nowhere,dc=example,dc=org", scope: .subtree, filter: "(uid=*)", attributes: [], timeoutMs: 2000)
        }
        #expect(missing.isEmpty)
    }

    @Test("ldaps and StartTLS verify the server certificate against the configured CA",
          .enabled(if: LDAPPeer.available, LDAPPeer.skipReason))
    func tls() async throws {
        let ca = try #require(LDAPPeer.caFile)
        let credentials = LDAPCredentials(dn: "uid=bob,ou=people,dc=example,dc=org", password: "bobpw")
        for server in [LDAPServer(url: try #require(LDAPPeer.ldapsURL), caFile: ca),
                       LDAPServer(url: try #require(LDAPPeer.url), startTLS: true, caFile: ca)] {
            let pool = LDAPConnectionPool(server: server, blocking: BlockingPool())
            try await pool.withConnection { try $0.bind(credentials) }
        }
        // A CA that did not sign the server certificate: the handshake fails, nothing is sent.
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("idc-other-ca-\(UUID().uuidString).pem")
        try Data(Self.unrelatedCA.utf8).write(to: other)
        defer { try? FileManager.default.removeItem(at: other) }
        let untrusted = LDAPConnectionPool(server: LDAPServer(url: try #require(LDAPPeer.ldapsURL), caFile: other.path),
                                           blocking: BlockingPool())
        let refused = await ldapError { try await untrusted.withConnection { try $0.bind(credentials) } }
        #expect(refused?.isConnectionProblem == true, "\(String(describing: refused))")
    }

    /// A self-signed certificate that signed nothing the tests' servers present.
    static let unrelatedCA = """
    -----BEGIN CERTIFICATE-----
    MIIDGTCCAgGgAwIBAgIUJZLPp2bFfAcRaRfjKxyCOBD9pcwwDQYJKoZIhvcNAQEL
    BQAwHDEaMBgGA1UEAwwRdW5yZWxhdGVkIHRlc3QgQ0EwHhcNMjYxMTIzMDQwNTEz
    WhcNMzYxMTIwMDQwNTEzWjAcMRowGAYDVQQDDBF1bnJlbGF0ZWQgdGVzdCBDQTCC
    ASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMnqEj02M45mWBYUMVvsOe36
    p6EAGG9mUVXazlZy8qP48t+H6BiC5jiH5PlLKCpmnpsZ6aYyJperubFujbS705cK
    w80lrgXmjkK0+5L63veUybbbZtaA+nr/aM/V5zIMsc7pwOSnUru0LGiWbtsHdj3K
    /gz0E6sEknwpWhDwyj0A3ifnzCM124N4b0+xpGj1qgIWig8SMorKuww5GE4d/fyB
    59TW8lMiRy+la4tBPXOYAfa1TNuFY4KZb2Pnr/7a+yYegjlJsevTmSNlk53dzRb0
    Qq0bHYvuNIg6YhNQqXjZEFJ1wzAzQN7FlzcZbLc1/u37Id2wgzihGziC69fIprUC
    AwEAAaNTMFEwHQYDVR0OBBYEFAPKl9VpczinIHXh6AN2dGeSb9b5MB8GA1UdIwQY
    MBaAFAPKl9VpczinIHXh6AN2dGeSb9b5MA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZI
    hvcNAQELBQADggEBAHyrr5MWrIAWzVrMhakxCQYXJcF5ET3JLeyBGYyQy1j8Fpwp
    Sma6fz9m3duQSqKmode7kTIs6o/6iFOfkfsleCQ8KHNaA7AsOr4dNA8B+a5JFxWB
    NhDOS4ihaFWktmf2/m70U9fKrGTbjsW/wVNE9JMadvB1eMs0rKmf28RD0MURM8Sl
    hLk/7wkV/gOt/Y/33Hqelgj+QTrfLcYu7tq+B2LUEfwaWe9Ukbm8QiIUIgtJ27AI
    OciQl1HC1FmKNeQcQ0tiLP8D5DD55RxTH7XqqRoPFeJfBZB2qSiumDULKDr2YUi7
    tq1b1hu4/411yw2u7H/9SKQSD8w/M2D8Gb5iwPc=
    -----END CERTIFICATE-----
    """
}
