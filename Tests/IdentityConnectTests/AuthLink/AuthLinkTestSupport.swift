import AuthLinkConnector
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import SAMLWrapConnector
import StaticConnector
import Synchronization

/// A broker whose `kid_al` environment signs in through an AuthLink at `authLink` and forwards to
/// data links at `dataLink`.
enum AuthLinkFixture {
    static let appKey = "kid_al"
    static let secret = "authlink-env-secret"
    static let registry = ConnectorRegistry([StaticConnectorFactory(), AuthLinkConnectorFactory(), SAMLWrapConnectorFactory()])

    static func files(authLink: String, dataLink: String, vaultKeys: String? = nil, extraOptions: String = "") -> [String: String] {
        var files = TestBroker.defaultConfig()
        files["environments/authlink.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            defaultAuthService: link
            authServices:
              - id: link
                redirectUri: [ "\(TestBroker.redirect)" ]
                tokenTtl: 3600
                provider:
                  type: custom
                  remoteService: \(authLink)/login
                  options: { refreshUrl: "\(authLink)/refresh", sharedSecret: shared-key-1, timeout: 2\(extraOptions) }
                  allowedAttributes: [ id, audience, client_token, email, department ]
                  datalinkHeaderMapping: { client_token: X-Kinvey-Auth, email: X-User-Email }
              - id: other
                redirectUri: [ "\(TestBroker.redirect)" ]
                provider: { type: custom, remoteService: "\(authLink)/login" }
            dataLinks:
              - { name: crm, url: "\(dataLink)/api", authKey: crm-key-1, timeout: 2 }
              - { name: bound, url: "\(dataLink)/api", authServices: [ other ] }
              - { name: down, url: "http://127.0.0.1:9" }
              - { name: crowd, url: "\(dataLink)/api", timeout: 30 }
        """
        if let vaultKeys { files["vault.yaml"] = vaultKeys }
        return files
    }

    static func signIn(_ client: any TestClientProtocol, _ username: String, password: String = "pw",
                       clientId: String = appKey) async throws -> TestResponse {
        try await client.postForm("/oauth/token", [("grant_type", "password"), ("client_id", clientId), ("username", username),
                                                   ("password", password)], headers: basicAuth(appKey, secret))
    }
}

/// A data link that records what it receives and answers according to the path.
enum RecordingDataLink {
    /// `…/together` answers only once `gathering` has seen all its callers (503 if they never come).
    static func router(log: CallLog, gathering: Gathering? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .trace,
                       HTTPRequest.Method("PROPFIND")!, HTTPRequest.Method("REPORT")!] {
            router.on("api/**", method: method) { request, _ in
                var request = request
                let body = Data(buffer: try await request.collectBody(upTo: 64 << 20))
                log.record(request, body: body)
                if request.uri.path.hasSuffix("/slow") { try await Task.sleep(for: .seconds(5)) }
                if request.uri.path.hasSuffix("/together"), let gathering, !(try await gathering.arrive()) {
                    return Response(status: .serviceUnavailable)
                }
                let status: HTTPResponse.Status = request.uri.path.hasSuffix("/created") ? .created : .ok
                var headers: HTTPFields = [.contentType: "application/octet-stream", HTTPField.Name("X-Backend")!: "crm"]
                if request.uri.path.hasSuffix("/cookie") {
                    // A backend that tries to set cookies on the broker's origin and names hop-by-hop headers.
                    headers[.setCookie] = "session=backend; Path=/"
                    headers[.connection] = "X-Backend-Hop"
                    headers[HTTPField.Name("X-Backend-Hop")!] = "hop"
                    headers[HTTPField.Name("Keep-Alive")!] = "timeout=5"
                }
                return Response(status: status, headers: headers,
                                body: .init(byteBuffer: ByteBuffer(bytes: Array("echo:".utf8) + Array(body))))
            }
        }
        return router
    }
}

/// Calls that wait for one another: each is let through once `size` calls have arrived, or
/// refused after `patience` when they never all do (so a test that fails ends within it).
final class Gathering: Sendable {
    let size: Int
    private let arrived = Atomic<Int>(0)

    init(size: Int) {
        self.size = size
    }

    /// True once all `size` calls are here; false when `patience` ran out first.
    func arrive(patience: Duration = .seconds(20)) async throws -> Bool {
        arrived.add(1, ordering: .relaxed)
        let clock = ContinuousClock()
        let end = clock.now + patience
        while arrived.load(ordering: .relaxed) < size {
            if clock.now >= end { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
