import Foundation
import IdentityConfig
import IdentityCore

extension TokenView {
    /// Names the validate body sets itself; attributes with these names are not copied over them.
    static let reservedNames: Set<String> = ["id", "audience", "expires_in", "client_token", "datalink_headers"]

    /// Whether `allowedAttributes` lets `name` out (absent list: everything, as MIC behaved).
    static func isAllowed(_ name: String, _ service: AuthService) -> Bool {
        service.provider.allowedAttributes.map { $0.contains(name) } ?? true
    }

    /// The validate body and data-link headers for a verified token and its upstream token.
    /// - Parameter service: the auth service the user signed in through (its `allowedAttributes`
    ///   and `datalinkHeaderMapping`), which an exchanged token's own client may not be.
    static func make(_ verified: VerifiedAccessToken, service: AuthService, upstream: UpstreamToken?, now: Date) -> TokenView {
        let session = verified.session
        var values: [String: JSONValue] = [
            "id": .string(session.userId),
            "audience": .string(verified.family.clientId),
        ]
        for (name, value) in session.attributes where !reservedNames.contains(name) && isAllowed(name, service) {
            values[name] = value
        }
        if isAllowed("client_token", service), let token = upstream?.token, !token.isEmpty {
            values["client_token"] = .string(Data(token.utf8).base64EncodedString())
        }
        var headers: [String: String] = [:]
        for (attribute, header) in service.provider.datalinkHeaderMapping.sorted(by: { $0.key < $1.key }) {
            guard attribute == "id" || attribute == "audience" || isAllowed(attribute, service),
                  let value = values[attribute] else { continue }
            let text = value.headerText
            // Header values must not carry line breaks (no header injection from upstream attributes).
            guard !text.isEmpty, !text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\u{0}" }) else { continue }
            headers[header] = text
        }
        var body = values
        body["expires_in"] = .int(Int64(max(0, verified.expiresAt.timeIntervalSince(now).rounded(.down))))
        body["datalink_headers"] = .object(headers.mapValues { .string($0) })
        // DPoP (docs/dpop.md): the key a bound token is bound to, for a back end that checks the app's proof itself.
        if let jkt = verified.family.dpopJkt { body["cnf"] = .object(["jkt": .string(jkt)]) }
        return TokenView(body: body, dataLinkHeaders: headers)
    }
}
