import Foundation
import IdentityCore

/// The stored form of a code: the JSON its `Codable` conformance describes (dates as seconds since
/// the reference date, absent optionals left out). Every sign-in writes one and every exchange
/// reads one, so a code without an OIDC `claims` request (nearly all of them) is written and read
/// with `JSONValue`'s byte-level writer and parser instead of `JSONEncoder` and `JSONDecoder`.
/// Either form reads back with either reader
/// (`StoredRecordJSONTests`).
extension AuthorizationCode {
    /// The JSON stored in the code's row.
    public func storedJSON() throws -> Data {
        guard claims == nil else { return try JSONEncoder().encode(self) }
        var object: [String: JSONValue] = [
            "hash": .string(hash), "clientId": .string(clientId), "redirectURI": .string(redirectURI), "scope": .string(scope),
            "sessionId": .string(sessionId), "createdAt": .double(createdAt.timeIntervalSinceReferenceDate),
            "expiresAt": .double(expiresAt.timeIntervalSinceReferenceDate),
        ]
        object["nonce"] = nonce.map { .string($0) }
        object["codeChallenge"] = codeChallenge.map { .string($0) }
        object["resources"] = resources.map { .array($0.map { .string($0) }) }
        object["online"] = online.map { .bool($0) }
        object["dpopJkt"] = dpopJkt.map { .string($0) }
        return Data(JSONValue.serialize(object: object))
    }

    /// A code read back from `storedJSON()` (or from `JSONEncoder`, as earlier releases wrote it).
    public static func fromStoredJSON(_ data: Data) throws -> AuthorizationCode {
        if case .object(let object)? = JSONValue(parsing: data) {
            var reader = StoredObject(object)
            var code = AuthorizationCode(
                hash: reader.string("hash") ?? "", clientId: reader.string("clientId") ?? "",
                redirectURI: reader.string("redirectURI") ?? "", scope: reader.string("scope") ?? "",
                nonce: reader.optionalString("nonce"), codeChallenge: reader.optionalString("codeChallenge"),
                sessionId: reader.string("sessionId") ?? "", createdAt: reader.date("createdAt"), expiresAt: reader.date("expiresAt"),
                resources: reader.optionalStrings("resources"), claims: nil, online: reader.optionalBool("online"))
            code.dpopJkt = reader.optionalString("dpopJkt")
            reader.absent("claims")
            if reader.complete { return code }
        }
        return try JSONDecoder().decode(AuthorizationCode.self, from: data)
    }
}

extension LoginSession {
    /// The session's attributes as stored in its row: `JSONValue`'s own compact writer, read back
    /// by `JSONValue(parsing:)` (the same values as from `JSONEncoder`, which earlier releases used).
    public var storedAttributes: Data { Data(JSONValue.serialize(object: attributes)) }
}

/// The stored form of a pending authorization, like `AuthorizationCode`'s: every sign-in writes
/// one and reads it back at least once, so it skips `JSONDecoder` too. One
/// with an OIDC `claims` request, a second step or a consent step outstanding goes through `Codable`.
extension PendingAuthorization {
    /// The JSON stored in the pending authorization's row.
    public func storedJSON() throws -> Data {
        guard claims == nil, secondStep == nil, consent == nil else { return try JSONEncoder().encode(self) }
        var object: [String: JSONValue] = [
            "clientId": .string(clientId), "appKey": .string(appKey), "authServiceId": .string(authServiceId),
            "redirectURI": .string(redirectURI), "scope": .string(scope), "mode": .string(mode.rawValue),
            "createdAt": .double(createdAt.timeIntervalSinceReferenceDate), "expiresAt": .double(expiresAt.timeIntervalSinceReferenceDate),
            "failedAttempts": .int(Int64(failedAttempts)),
        ]
        object["state"] = state.map { .string($0) }
        object["nonce"] = nonce.map { .string($0) }
        object["codeChallenge"] = codeChallenge.map { .string($0) }
        object["browserHash"] = browserHash.map { .string($0) }
        object["prompt"] = prompt.map { .string($0) }
        object["loginHint"] = loginHint.map { .string($0) }
        object["upstreamState"] = upstreamState.map { .string($0.base64EncodedString()) }
        object["lastError"] = lastError.map { .string($0) }
        object["resources"] = resources.map { .array($0.map { .string($0) }) }
        object["maxAge"] = maxAge.map { .int(Int64($0)) }
        object["online"] = online.map { .bool($0) }
        object["responseMode"] = responseMode.map { .string($0.rawValue) }
        object["stepUp"] = stepUp.map { .string($0.rawValue) }
        object["dpopJkt"] = dpopJkt.map { .string($0) }
        object["permissionId"] = permissionId.map { .string($0) }
        object["uiLocales"] = uiLocales.map { .string($0) }
        return Data(JSONValue.serialize(object: object))
    }

    /// A pending authorization read back from `storedJSON()` (or from `JSONEncoder`).
    public static func fromStoredJSON(_ data: Data) throws -> PendingAuthorization {
        if case .object(let object)? = JSONValue(parsing: data) {
            var reader = StoredObject(object)
            let mode = reader.string("mode").flatMap(Mode.init(rawValue:))
            var pending = PendingAuthorization(
                clientId: reader.string("clientId") ?? "", appKey: reader.string("appKey") ?? "",
                authServiceId: reader.string("authServiceId") ?? "", redirectURI: reader.string("redirectURI") ?? "",
                scope: reader.string("scope") ?? "", state: reader.optionalString("state"), nonce: reader.optionalString("nonce"),
                codeChallenge: reader.optionalString("codeChallenge"), mode: mode ?? .api,
                browserHash: reader.optionalString("browserHash"), prompt: reader.optionalString("prompt"),
                loginHint: reader.optionalString("loginHint"), createdAt: reader.date("createdAt"), expiresAt: reader.date("expiresAt"),
                upstreamState: reader.optionalData("upstreamState"), failedAttempts: reader.int("failedAttempts"),
                lastError: reader.optionalString("lastError"))
            pending.resources = reader.optionalStrings("resources")
            pending.maxAge = reader.optionalInt("maxAge")
            pending.dpopJkt = reader.optionalString("dpopJkt")
            pending.permissionId = reader.optionalString("permissionId")
            pending.uiLocales = reader.optionalString("uiLocales")
            pending.online = reader.optionalBool("online")
            let responseMode = reader.optionalString("responseMode")
            pending.responseMode = responseMode.flatMap(ResponseMode.init(rawValue:))
            let stepUp = reader.optionalString("stepUp")
            pending.stepUp = stepUp.flatMap(StepUp.init(rawValue:))
            reader.absent("claims")
            reader.absent("secondStep")
            reader.absent("consent")
            if mode != nil, responseMode == nil || pending.responseMode != nil, stepUp == nil || pending.stepUp != nil,
               reader.complete { return pending }
        }
        return try JSONDecoder().decode(PendingAuthorization.self, from: data)
    }
}
