import Foundation
import IdentityCore
import StoreContracts
import StoreTesting
import Testing

/// Records the broker stores as JSON are written and read without `JSONEncoder`/`JSONDecoder` on
/// the hot paths (`UpstreamToken.serialized`, `AuthorizationCode.storedJSON()`,
/// `LoginSession.storedAttributes`). Rows written by earlier releases (with `JSONEncoder`) and
/// rows written now must read back as the same values, with the fast readers and with
/// `JSONDecoder`.
@Suite("Store: stored JSON written and read by hand")
struct StoredRecordJSONTests {
    static let awkward = ["plain", "a\"quote\\back", "line\nfeed\ttab\u{1}", "https://api.example.org/x", "Zoë 東京 🚀", ""]
    /// Whole seconds, fractions, the far past and future: every date the reference-date encoding meets.
    static let dates = [Date(timeIntervalSinceReferenceDate: 812_345_678), Date(timeIntervalSinceReferenceDate: 812_345_678.123456),
                        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 4_102_444_800.5), Date()]

    @Test("upstream token: read back equal by both readers; byte for byte JSONEncoder's when the extras sort alike")
    func upstreamToken() throws {
        for text in Self.awkward {
            for expiry in Self.dates.map(Optional.some) + [nil] {
                for refresh in [nil, "r-" + text] {
                    let token = UpstreamToken(token: "t-" + text, refreshToken: refresh, expiresAt: expiry,
                                              extra: text.isEmpty ? [:] : ["id_token": text, "k" + text: "v", "B": "upper"])
                    #expect(try UpstreamToken.decode(token.serialized) == token)
                    #expect(try JSONDecoder().decode(UpstreamToken.self, from: token.serialized) == token)
                    #expect(try UpstreamToken.decode(JSONEncoder.sortedCompact.encode(token)) == token)
                    let plain = UpstreamToken(token: "t-" + text, refreshToken: refresh, expiresAt: expiry, extra: ["id_token": text])
                    #expect(plain.serialized == (try JSONEncoder.sortedCompact.encode(plain)), "\(plain)")
                }
            }
        }
    }

    static func code(_ text: String, date: Date) -> [AuthorizationCode] {
        let base = AuthorizationCode(hash: "h" + text, clientId: "kid" + text, redirectURI: "https://app.example.com/cb?x=" + text,
                                     scope: "openid " + text, nonce: nil, codeChallenge: nil, sessionId: "s" + text,
                                     createdAt: date, expiresAt: date.addingTimeInterval(60))
        var full = base
        full.nonce = "n" + text
        full.codeChallenge = "c" + text
        full.resources = ["https://api.example.org/" + text, text]
        full.online = true
        full.dpopJkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        var empty = base
        empty.resources = []
        empty.online = false
        var claims = full
        claims.claims = ClaimsRequest(idToken: ["email"], userinfo: ["name"])
        return [base, full, empty, claims]
    }

    @Test("authorization code: storedJSON reads back equal with both readers, and JSONEncoder's rows read back too")
    func authorizationCode() throws {
        for text in Self.awkward {
            for date in Self.dates {
                for code in Self.code(text, date: date) {
                    let stored = try code.storedJSON()
                    #expect(try AuthorizationCode.fromStoredJSON(stored) == code)
                    #expect(try JSONDecoder().decode(AuthorizationCode.self, from: stored) == code)
                    #expect(try AuthorizationCode.fromStoredJSON(JSONEncoder().encode(code)) == code)
                }
            }
        }
    }

    @Test("authorization code: a member the fast reader does not know, or of another kind, goes to JSONDecoder")
    func authorizationCodeFallback() throws {
        let code = Self.code("x", date: Self.dates[0])[1]
        guard case .object(var object)? = JSONValue(parsing: try code.storedJSON()) else { Issue.record("not an object"); return }
        object["addedLater"] = .int(1)
        #expect(try AuthorizationCode.fromStoredJSON(Data(JSONValue.serialize(object: object))) == code)
        object["online"] = .string("yes")
        #expect(throws: (any Error).self) { try AuthorizationCode.fromStoredJSON(Data(JSONValue.serialize(object: object))) }
        #expect(throws: (any Error).self) { try AuthorizationCode.fromStoredJSON(Data("[]".utf8)) }
    }

    static func pendings(_ text: String, date: Date) -> [PendingAuthorization] {
        let base = PendingAuthorization(clientId: "kid" + text, appKey: "kid", authServiceId: "svc" + text,
                                        redirectURI: "https://app.example.com/cb?x=" + text, scope: "openid " + text, state: nil,
                                        nonce: nil, codeChallenge: nil, mode: .api, createdAt: date, expiresAt: date.addingTimeInterval(600))
        var full = base
        full.state = "st" + text
        full.nonce = "n" + text
        full.codeChallenge = "c" + text
        full.mode = .browser
        full.browserHash = "b" + text
        full.prompt = "login"
        full.loginHint = text
        full.upstreamState = Data((text + "\u{0}\u{ff}state/+=").utf8)
        full.failedAttempts = 3
        full.lastError = "Wrong password: " + text
        full.resources = ["https://api.example.org/" + text]
        full.maxAge = 0
        full.online = false
        full.dpopJkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        full.permissionId = "perm_" + text
        full.uiLocales = "de-AT fr " + text
        var upstream = base
        upstream.mode = .upstream
        upstream.upstreamState = Data()
        upstream.resources = []
        var claims = full
        claims.claims = ClaimsRequest(idToken: ["email"])
        var held = base
        held.secondStep = SecondStep(purpose: .verify, userId: "u" + text, username: text, sealedIdentity: nil, amr: ["pwd"])
        // Waiting on the consent screen (docs/consent.md): the fast writer must not drop the step
        // (another instance would then find no consent to decide).
        var consenting = full
        consenting.consent = ConsentStep(subject: "sub" + text, userId: "u" + text, displayName: text, sealedIdentity: Data([1, 2]),
                                         amr: ["pwd"])
        return [base, full, upstream, claims, held, consenting]
    }

    @Test("pending authorization: storedJSON reads back equal with both readers, and JSONEncoder's rows read back too")
    func pendingAuthorization() throws {
        for text in Self.awkward {
            for date in Self.dates {
                for pending in Self.pendings(text, date: date) {
                    let stored = try pending.storedJSON()
                    #expect(try PendingAuthorization.fromStoredJSON(stored) == pending)
                    #expect(try JSONDecoder().decode(PendingAuthorization.self, from: stored) == pending)
                    #expect(try PendingAuthorization.fromStoredJSON(JSONEncoder().encode(pending)) == pending)
                }
            }
        }
        // An unknown mode or member kind is JSONDecoder's to judge.
        let pending = Self.pendings("x", date: Self.dates[0])[1]
        guard case .object(var object)? = JSONValue(parsing: try pending.storedJSON()) else { Issue.record("not an object"); return }
        object["mode"] = .string("carrier-pigeon")
        #expect(throws: (any Error).self) { try PendingAuthorization.fromStoredJSON(Data(JSONValue.serialize(object: object))) }
        object["mode"] = .string("browser")
        object["failedAttempts"] = .double(1.5)
        #expect(throws: (any Error).self) { try PendingAuthorization.fromStoredJSON(Data(JSONValue.serialize(object: object))) }
    }

    @Test("session attributes: the stored bytes parse to what JSONEncoder's did")
    func sessionAttributes() throws {
        for text in Self.awkward {
            let attributes: [String: JSONValue] = [
                "email": .string(text + "@example.org"), "groups": .array([.string(text), .string("b")]), "n": .int(-7),
                "ratio": .double(2.5), "whole": .double(3), "flag": .bool(true), "none": .null,
                "nested": .object([text: .array([.int(1), .object(["k": .string(text)])])]), text: .string(text),
            ]
            var session = StoreFixtures.session("s")
            session.attributes = attributes
            let legacy = try JSONEncoder().encode(attributes)
            #expect(JSONValue(parsing: session.storedAttributes) == JSONValue(parsing: legacy))
        }
    }
}
