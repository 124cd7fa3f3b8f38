import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import IdentityCore
import NIOCore
import SAMLConnector
import StaticConnector
import Testing

/// A real SAML IdP started by scripts/test.sh, read from its metadata.
struct SAMLPeer: Sendable {
    var metadataURL: String
    var redirectSSO: String
    var postSSO: String
    var certificatePEM: String

    /// The peer named by `variable` (a metadata URL), or nil when scripts/test.sh did not start it.
    static func load(_ variable: String) async throws -> SAMLPeer? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        return try await load(metadata: url)
    }

    /// The peer whose metadata is at `url`.
    static func load(metadata url: String) async throws -> SAMLPeer {
        let xml = try await fetch(url)
        func location(_ binding: String) throws -> String {
            let pattern = #"SingleSignOnService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:\#(binding)"[^>]*Location="([^"]+)""#
            let regex = try NSRegularExpression(pattern: pattern)
            guard let match = regex.firstMatch(in: xml, range: NSRange(xml.startIndex..., in: xml)),
                  let range = Range(match.range(at: 1), in: xml) else { throw SAMLPeerError(description: "no \(binding) SSO in \(url)") }
            return String(xml[range])
        }
        let certificate = try NSRegularExpression(pattern: #"X509Certificate>\s*([A-Za-z0-9+/=\s]+?)\s*</"#)
        guard let match = certificate.firstMatch(in: xml, range: NSRange(xml.startIndex..., in: xml)),
              let range = Range(match.range(at: 1), in: xml) else { throw SAMLPeerError(description: "no certificate in \(url)") }
        let body = xml[range].filter { !$0.isWhitespace }
        let lines = stride(from: 0, to: body.count, by: 64).map { offset -> String in
            let start = body.index(body.startIndex, offsetBy: offset)
            return String(body[start..<(body.index(start, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex)])
        }
        let pem = "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        return SAMLPeer(metadataURL: url, redirectSSO: try location("HTTP-Redirect"), postSSO: try location("HTTP-POST"), certificatePEM: pem)
    }

    static func fetch(_ url: String) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    struct SAMLPeerError: Error, CustomStringConvertible { let description: String }
}

/// Brokers with SAML auth services, and the browser round trip through an IdP's login form.
enum SAMLPeerFixture {
    static let appKey = "kid_saml"
    static let secret = "saml-env-secret"
    static let registry = ConnectorRegistry([StaticConnectorFactory(), SAMLConnectorFactory()])
    static let acs = "http://127.0.0.1:8080/saml/acs"

    static var spKeyPath: String? { ProcessInfo.processInfo.environment["IDCONNECT_SAML_SP_KEY"] }
    static var spCertPath: String? { ProcessInfo.processInfo.environment["IDCONNECT_SAML_SP_CERT"] }

    /// An auth service item signing in at `peer` over `binding` (`saml-redirect` or `saml-post`).
    static func service(_ id: String, _ peer: SAMLPeer, type: String, extra: [String] = [], certificate: String? = nil,
                        sso: String? = nil) -> String {
        let pem = (certificate ?? peer.certificatePEM).split(separator: "\n").map { "              \($0)" }.joined(separator: "\n")
        let options = extra.map { "            \($0)\n" }.joined()
        return """
              - id: \(id)
                redirectUri: [ "\(TestBroker.redirect)" ]
                tokenTtl: 86400
                provider:
                  type: \(type)
                  remoteService: "\(sso ?? (type == "saml-post" ? peer.postSSO : peer.redirectSSO))"
                  options:
                    idpCertificate: |
        \(pem)
        \(options)          allowedAttributes: [ id, audience, client_token, email, name, groups, mail, displayName, eduPersonAffiliation ]
        """
    }

    /// `auditFile`: where the broker writes its audit events (`server.audit.file`).
    static func broker(_ services: [String], clock: ManualClock = ManualClock(Date()), auditFile: String? = nil,
                       backend: StoreBackend = .sqlite) async throws -> TestBroker {
        var files = TestBroker.defaultConfig()
        if let auditFile {
            files["server.yaml"] = "server:\n  issuer: http://127.0.0.1:8080\n  audit:\n    file: \(auditFile)\nsigning:\n  algorithm: RS256\n"
        }
        files["environments/saml.yaml"] = """
        environments:
          - appKey: \(appKey)
            appSecret: \(secret)
            authServices:
        \(services.joined(separator: "\n"))
        """
        return try await TestBroker.make(files: files, registry: registry, clock: clock, backend: backend)
    }

    /// Starts a sign-in at the broker and drives the IdP's login form until the IdP's form that
    /// posts to the ACS; returns that form's fields (SAMLResponse, RelayState) without posting them.
    static func responseFields(_ client: any TestClientProtocol, authService: String, username: String = "alice",
                               password: String = "alicepw", prompt: String? = nil,
                               browser: UpstreamBrowser = UpstreamBrowser()) async throws -> [(String, String)] {
        var query = [("client_id", "\(appKey).\(authService)"), ("redirect_uri", TestBroker.redirect), ("response_type", "code"),
                     ("state", "app-state"), ("scope", "openid"), ("code_challenge", Flows.challenge), ("code_challenge_method", "S256")]
        if let prompt { query.append(("prompt", prompt)) }
        let start = try await client.get("/oauth/auth?" + formEncode(query), headers: [.cookie: browserCookie])
        let first = UpstreamBrowser.Page(url: "http://127.0.0.1:8080/oauth/auth", status: Int(start.status.code),
                                         location: start.location, body: start.text)
        return try await browser.formPosting(to: acs, from: first, username: username, password: password)
    }

    /// The test browser's binding cookie: every sign-in of these tests starts and ends in one
    /// browser, which the broker recognises by it (docs/security.md, rule 4).
    static let browserBinding = "b1ndingb1ndingb1ndingb1ndingb1ndingb1nding0"
    static var browserCookie: String { "idc_csrf=\(browserBinding)" }

    /// Posts the IdP's answer to the broker's ACS, as the browser's auto-submitting form would
    /// once it is on the broker's own origin (where the binding cookie comes along; a cross-site
    /// post without it is bounced first, see `SAMLBindingSecurityTests`).
    static func postToACS(_ client: any TestClientProtocol, _ fields: [(String, String)]) async throws -> TestResponse {
        try await client.postForm("/saml/acs", fields, headers: [.cookie: browserCookie])
    }

    /// The whole sign-in: tokens for the user, and the broker's `/oauth/validate` view of them.
    static func signIn(_ client: any TestClientProtocol, authService: String) async throws -> (tokens: [String: Any], view: [String: Any]) {
        let (tokens, view, _) = try await signInWithSSO(client, authService: authService)
        return (tokens, view)
    }

    /// As `signIn`, also returning the SSO cookie the ACS set for the test browser.
    /// `browser`: the one whose IdP session the sign-in starts (single logout tests keep it).
    static func signInWithSSO(_ client: any TestClientProtocol, authService: String,
                              browser: UpstreamBrowser = UpstreamBrowser()) async throws -> (tokens: [String: Any], view: [String: Any], sso: String?) {
        let answer = try await postToACS(client, try await responseFields(client, authService: authService, browser: browser))
        #expect(answer.status == .found, "\(authService): \(answer.text.replacingOccurrences(of: "\n", with: " ").suffix(400))")
        let location = try #require(answer.location)
        #expect(location.hasPrefix(TestBroker.redirect + "?state=app-state&iss=\(TestBroker.encodedIssuer)&code="), "\(location)")
        let code = try #require(queryItems(location)["code"])
        let exchange = try await client.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestBroker.redirect),
            ("client_id", "\(appKey).\(authService)"), ("code_verifier", Flows.verifier)])
        #expect(exchange.status == .ok)
        let access = try #require(exchange.json["access_token"] as? String)
        let view = try await Flows.validate(client, access)
        #expect(view.status == .ok)
        return (exchange.json, view.json, answer.cookies["idc_sso"])
    }
}

extension UpstreamBrowser {
    /// Follows redirects and fills forms (the login form; the broker's and IdP's auto-submitting
    /// ones) from `first` until a page holds a form posting to `stopPrefix`; returns its fields.
    func formPosting(to stopPrefix: String, from first: Page, username: String, password: String,
                     maxSteps: Int = 12) async throws -> [(String, String)] {
        var page = first
        for _ in 0..<maxSteps {
            if let location = page.location, (300..<400).contains(page.status) {
                page = try await request(location)
                continue
            }
            guard let form = HTMLForm.find(in: page.body, baseURL: page.url) else {
                throw BrowserStuck(description: "no form at \(page.url) (HTTP \(page.status)): \(page.body.prefix(600))")
            }
            if form.action.hasPrefix(stopPrefix) {
                return form.inputs.filter { $0.type == "hidden" }.map { ($0.name, $0.value) }
            }
            page = try await request(form.action, method: form.method == "get" ? .GET : .POST,
                                     form: form.filled(username: username, password: password))
        }
        throw BrowserStuck(description: "too many steps: \(visited)")
    }
}
