import Crypto
import Foundation
import IdentityCore
import JOSE

/// The HTTP request a DPoP proof came with: what its `htm`, `htu` and `ath` must name.
public struct DPoPRequest: Sendable, Equatable {
    /// The request's method, as sent (`POST`, `GET`).
    public var method: String
    /// The request's URL without query or fragment, as the broker's issuer names it
    /// (`<issuer>/oauth/token`): behind a proxy the client signs the public URL, not ours.
    public var url: String
    /// The access token the request carries (resource requests): the proof's `ath` must be its hash.
    public var accessToken: String?

    public init(method: String, url: String, accessToken: String? = nil) {
        self.method = method
        self.url = url
        self.accessToken = accessToken
    }
}

/// A DPoP proof that passed every check of RFC 9449 §4.3 except replay and nonce, which need
/// storage and configuration (``DPoPGate``).
public struct DPoPProof: Sendable, Equatable {
    /// The JWK SHA-256 thumbprint of the proof's key (RFC 7638): what tokens are bound to.
    public let thumbprint: String
    public let jti: String
    public let issuedAt: Date
    /// The server nonce the proof carries, if any (RFC 9449 §8).
    public let nonce: String?
}

/// Why a proof was refused: said to the client in `error_description` (a proof is the client's
/// own creation, nothing here is secret) and logged.
public struct DPoPRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Checks a DPoP proof JWT against the request it came with (RFC 9449 §4.3): one compact JWS of
/// `typ: dpop+jwt`, signed with an asymmetric algorithm by the public key in its own `jwk` header
/// (never a private key), with `jti`, `htm` and `htu` naming this request, `iat` within
/// ``maximumAge`` (and not ahead by more than the skew), and `ath` the access token's hash on a
/// resource request. Pure: no storage, no clock of its own.
public enum DPoPProofChecker {
    /// How old a proof may be (its `iat`), and so how long its `jti` is remembered.
    public static let maximumAge: TimeInterval = 300
    /// How far ahead of our clock a client's `iat` may be.
    public static let skew: TimeInterval = 60
    /// The algorithms proofs may be signed with (`dpop_signing_alg_values_supported`).
    public static let algorithms = JOSEAlgorithm.defaultAllowed

    static let policy = JWTPolicy(use: "DPoP proof", algorithms: algorithms, types: ["dpop+jwt"],
                                  requiredClaims: ["jti", "htm", "htu", "iat"], expiry: .ignored, skew: skew, maxLength: 8_192)

    /// Members that only a private key has: a proof carrying one leaks its key and is refused.
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    public static func check(_ proof: String, for request: DPoPRequest, now: Date) throws(DPoPRefusal) -> DPoPProof {
        let checked: (parts: CompactJWS.Parts, algorithm: JOSEAlgorithm)
        do {
            checked = try JWTVerifier.checkHeader(proof, policy: policy)
        } catch {
            throw DPoPRefusal("the proof's header is not acceptable: \(error)")
        }
        guard case .object(let jwk)? = checked.parts.header["jwk"] else { throw DPoPRefusal("the proof has no jwk header") }
        guard !privateMembers.contains(where: { jwk[$0] != nil }) else { throw DPoPRefusal("the proof's jwk holds a private key") }
        guard let key = JSONWebKey(jwk), key.fits(checked.algorithm), let thumbprint = JWKThumbprint.sha256(of: jwk) else {
            throw DPoPRefusal("the proof's jwk is not a usable \(checked.algorithm.rawValue) public key")
        }
        let claims: [String: JSONValue]
        do {
            claims = try JWTVerifier.verify(checked, keys: key, policy: policy, now: now).claims
        } catch {
            throw DPoPRefusal("the proof does not verify: \(error)")
        }
        guard let jti = claims["jti"]?.stringValue, (1...256).contains(jti.utf8.count) else {
            throw DPoPRefusal("jti must be a string of at most 256 bytes")
        }
        guard claims["htm"]?.stringValue == request.method else { throw DPoPRefusal("htm is not this request's method (\(request.method))") }
        guard let htu = claims["htu"]?.stringValue, let presented = normalized(htu), presented == normalized(request.url) else {
            throw DPoPRefusal("htu is not this request's URL (\(request.url))")
        }
        guard let issuedAt = claims["iat"]?.numberValue else { throw DPoPRefusal("iat must be a number") }
        guard now.timeIntervalSince1970 - issuedAt <= maximumAge else {
            throw DPoPRefusal("the proof is older than \(Int(maximumAge)) seconds (iat)")
        }
        if let token = request.accessToken {
            guard let ath = claims["ath"]?.stringValue, Secrets.constantTimeEquals(ath, accessTokenHash(token)) else {
                throw DPoPRefusal("ath is not the hash of the access token sent")
            }
        }
        let nonce: String?
        switch claims["nonce"] {
        case nil: nonce = nil
        case .string(let value)?: nonce = value
        default: throw DPoPRefusal("nonce must be a string")
        }
        return DPoPProof(thumbprint: thumbprint, jti: jti, issuedAt: Date(timeIntervalSince1970: issuedAt), nonce: nonce)
    }

    /// `ath` (RFC 9449 §4.2): base64url SHA-256 of the access token's ASCII.
    public static func accessTokenHash(_ token: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(token.utf8))))
    }

    /// An http(s) URL as compared (RFC 9449 §4.3 item 9, RFC 3986 §6.2.2–6.2.3): scheme and host
    /// lowercased, the scheme's default port dropped, an empty path `/`, no query or fragment.
    static func normalized(_ url: String) -> String? {
        guard url.utf8.count <= 2_048, let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.percentEncodedHost?.lowercased(), !host.isEmpty,
              components.user == nil, components.password == nil else { return nil }
        var text = "\(scheme)://\(host)"
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            text += ":\(port)"
        }
        let path = components.percentEncodedPath
        return text + (path.isEmpty ? "/" : path)
    }
}
