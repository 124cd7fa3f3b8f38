import IdentityCore
import HTTPTypes
import NIOHTTP1

/// Which headers cross the data-link gateway (docs/protocol.md, "Data-link gateway";
/// docs/security.md, rules 3 and 15).
///
/// Toward the data link the caller's credentials, cookies and everything the gateway vouches for
/// itself are removed — `Authorization`, `Cookie`, `X-Auth-Key`, every `X-Kinvey-*`, every header
/// name a `datalinkHeaderMapping` of the environment uses, and the proxy headers `Forwarded`,
/// `X-Forwarded-*`, `X-Real-IP` — so that a backend never mistakes a caller's forgery for the
/// broker's word. Hop-by-hop headers (RFC 9110 §7.6.1: `Connection` and each header it names,
/// `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`, `Proxy-Authorization`,
/// `Proxy-Connection`) are dropped in both directions, and `Set-Cookie` on the way back: the
/// backend never sets cookies on the broker's origin.
enum DataLinkHeaders {
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]
    /// Request headers never forwarded as the caller sent them.
    static let callerOnly: Set<String> = [
        "host", "content-length", "authorization", "dpop", "cookie", "cookie2", "forwarded", "x-real-ip", "x-auth-key",
        // Headers some backends route or dispatch by (IIS, Symfony, method overrides): the path and
        // method the gateway checked are the ones the data link must act on.
        "x-original-url", "x-rewrite-url", "x-http-method-override", "x-http-method", "x-method-override",
    ]
    static let callerOnlyPrefixes = ["x-forwarded-", "x-kinvey-"]
    static let responseDropped: Set<String> = ["set-cookie", "set-cookie2", "content-length"]

    /// The header names a `Connection` header lists (they are hop-by-hop too).
    static func connectionNamed(_ values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty })
    }

    /// The caller's headers that may go to the data link.
    static func forwardable(_ fields: HTTPFields, mapped: Set<String>) -> [(name: String, value: String)] {
        let named = connectionNamed(fields[values: .connection])
        return fields.compactMap { field in
            let name = field.name.canonicalName
            guard !hopByHop.contains(name), !named.contains(name), !callerOnly.contains(name), !mapped.contains(name),
                  !callerOnlyPrefixes.contains(where: name.hasPrefix) else { return nil }
            return (field.name.rawName, field.value)
        }
    }

    /// The data link's answer headers that may go back to the caller.
    static func returnable(_ headers: HTTPHeaders) -> HTTPFields {
        let named = connectionNamed(headers[canonicalForm: "connection"].map(String.init))
        var fields = HTTPFields()
        for (name, value) in headers {
            let lower = name.lowercased()
            guard !hopByHop.contains(lower), !named.contains(lower), !responseDropped.contains(lower),
                  let field = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        return fields
    }
}

/// The part of a gateway path that goes to the data link (docs/security.md, rule 3): every segment
/// is checked decoded — dot segments (also with `;parameters`, which Java servers strip: `..;`),
/// encoded `/` or `\`, NUL, an encoded `%` (a second decoding would make any of these) and broken
/// percent-encoding are refused with 400 — and forwarded as it came, so the forwarded path
/// always stays under the data link's own.
enum DataLinkPath {
    struct Refused: Error {}

    /// Splits `/datalink/{name}/{rest...}` (raw, as received) into the link name and the checked rest.
    static func parse(_ rawPath: String) throws(Refused) -> (name: String, rest: [Substring]) {
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3, segments[0].isEmpty, segments[1] == "datalink" else { throw Refused() }
        guard let name = decode(segments[2]), !name.isEmpty else { throw Refused() }
        let rest = Array(segments.dropFirst(3))
        for segment in rest {
            guard let decoded = decode(segment), !decoded.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\u{0}" || $0 == "%" }) else {
                throw Refused()
            }
            let bare = decoded.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard bare != ".", bare != ".." else { throw Refused() }
        }
        return (name, rest)
    }

    /// Percent-decodes one segment; nil for broken escapes or bytes that are not UTF-8.
    static func decode(_ segment: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(segment.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
