import Foundation
import Hummingbird
import IdentityApp
import Testing
import Yams

/// docs/openapi.yaml and the router agree both ways: every route the broker registers is in
/// the document, and every operation the document describes is a route (scripts/openapi/check.py
/// then checks the answers of a live broker against the document).
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// (method, path) pairs the document describes, with `{name}` parameters as `{}`; and those
    /// it lists as answered with 405.
    static func documented() throws -> (operations: Set<String>, refused: Set<String>) {
        let text = try String(contentsOf: documentURL, encoding: .utf8)
        let root = try #require(try Yams.load(yaml: text) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        let components = (root["components"] as? [String: Any])?["pathItems"] as? [String: Any] ?? [:]
        var operations: Set<String> = []
        var refused: Set<String> = []
        for (path, value) in paths {
            var item = try #require(value as? [String: Any])
            if let reference = item["$ref"] as? String {
                item = try #require(components[String(reference.split(separator: "/").last!)] as? [String: Any], "\(reference)")
            }
            let normalized = normalize(path)
            for method in methods where item[method] != nil { operations.insert("\(method) \(normalized)") }
            if let notAllowed = item["x-method-not-allowed"] as? [String: Any], let listed = notAllowed["methods"] as? [String] {
                for method in listed { refused.insert("\(method.lowercased()) \(normalized)") }
            }
        }
        return (operations, refused)
    }

    static func normalize(_ path: String) -> String {
        let trimmed = path.hasPrefix("/") ? path : "/" + path
        return trimmed.replacingOccurrences(of: #"\{[^}]*\}|:[A-Za-z_]+|\*\*"#, with: "{}", options: .regularExpression)
    }

    @Test("every route the router has is in docs/openapi.yaml, and every documented operation is a route")
    func bothWays() async throws {
        let broker = try await TestBroker.make()
        let routes = Set(buildRouter(broker.engine).routes.map { "\($0.method.rawValue.lowercased()) \(Self.normalize("\($0.path)"))" })
        let (operations, refused) = try Self.documented()
        let undocumented = routes.subtracting(operations).subtracting(refused)
        #expect(undocumented.isEmpty, "routes missing from docs/openapi.yaml: \(undocumented.sorted())")
        // HEAD and OPTIONS of the gateway are answered by its middleware, not by routes.
        let missing = operations.subtracting(routes).filter { !$0.hasPrefix("head /datalink") && !$0.hasPrefix("options /datalink") }
        #expect(missing.isEmpty, "documented operations the router does not have: \(missing.sorted())")
        // A documented 405 is a refusing route (`refuseOtherMethods`), OPTIONS included.
        let unrefused = refused.subtracting(routes)
        #expect(unrefused.isEmpty, "methods documented as 405 that the router does not answer: \(unrefused.sorted())")
    }

    @Test("userinfo's documented schema names every claim userinfo returns, with its type")
    func userinfoSchema() async throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let root = try #require(try Yams.load(yaml: text) as? [String: Any])
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let schema = try #require(schemas["UserInfoResponse"] as? [String: Any])
        // Each documented claim with its type ("" when the schema leaves it open).
        let types = try #require(schema["properties"] as? [String: [String: Any]]).mapValues { $0["type"] as? String ?? "" }
        #expect(schema["additionalProperties"] as? Bool == false)
        let broker = try await TestBroker.make()
        try await broker.withClient { client in
            let location = try await Flows.automatedLogin(client, extra: [("scope", "openid email profile groups")])
            let tokens = try await Flows.exchange(client, code: try #require(queryItems(location)["code"])).json
            let access = try #require(tokens["access_token"] as? String)
            let claims = try await client.get("/oauth/userinfo", headers: [.authorization: "Bearer \(access)"]).json
            #expect(Set(claims.keys) == ["sub", "email", "email_verified", "name", "preferred_username", "groups"])
            for (claim, value) in claims {
                let type = try #require(types[claim], "userinfo returns '\(claim)', which UserInfoResponse does not allow")
                switch type {
                case "string": #expect(value is String, "\(claim)")
                case "boolean": #expect(value as? Bool != nil && !(value is String), "\(claim)")
                default: break
                }
            }
        }
    }
}
