import Foundation
import IdentityConfig
import IdentityCore
import StoreContracts

/// What a backend learns about a token: the `/oauth/validate` body and the data-link headers (SPEC §3.5, §5).
public struct TokenView: Sendable {
    public var body: [String: JSONValue]
    public var dataLinkHeaders: [String: String]
}

extension BrokerEngine {
    /// Names the validate body sets itself; attributes with these names are not copied over them.
    static let reservedNames: Set<String> = ["id", "audience", "expires_in", "client_token", "datalink_headers"]

    /// Whether `allowedAttributes` lets `name` out (absent list: everything, as MIC behaved).
    static func isAllowed(_ name: String, _ service: AuthService) -> Bool {
        service.provider.allowedAttributes.map { $0.contains(name) } ?? true
    }

    /// Builds the validate body and data-link headers for a verified token and its upstream token.
    public func tokenView(_ verified: VerifiedAccessToken, upstream: UpstreamToken?) -> TokenView {
        let service = verified.client.service
        let session = verified.session
        var values: [String: JSONValue] = [
            "id": .string(session.userId),
            "audience": .string(verified.family.clientId),
        ]
        for (name, value) in session.attributes where !Self.reservedNames.contains(name) && Self.isAllowed(name, service) {
            values[name] = value
        }
        if Self.isAllowed("client_token", service), let token = upstream?.token, !token.isEmpty {
            values["client_token"] = .string(Data(token.utf8).base64EncodedString())
        }
        var headers: [String: String] = [:]
        for (attribute, header) in service.provider.datalinkHeaderMapping.sorted(by: { $0.key < $1.key }) {
            guard attribute == "id" || attribute == "audience" || Self.isAllowed(attribute, service),
                  let value = values[attribute] else { continue }
            let text = value.headerText
            // Header values must not carry line breaks (no header injection from upstream attributes).
            guard !text.isEmpty, !text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\u{0}" }) else { continue }
            headers[header] = text
        }
        var body = values
        body["expires_in"] = .int(Int64(max(0, verified.expiresAt.timeIntervalSince(clock.now()).rounded(.down))))
        body["datalink_headers"] = .object(headers.mapValues { .string($0) })
        return TokenView(body: body, dataLinkHeaders: headers)
    }

    /// Verifies a token and brings its upstream token up to date (SPEC §4), for validate,
    /// introspection and the data-link gateway. A session the source ended is `invalid_token`.
    public func verifyAndRefresh(_ token: String) async throws -> (VerifiedAccessToken, UpstreamToken?) {
        try await refreshingUpstream(try await verifyAccessToken(token))
    }

    /// The upstream token of a verified access token's session, refreshed first when its TTL ran out.
    func refreshingUpstream(_ verified: VerifiedAccessToken) async throws -> (VerifiedAccessToken, UpstreamToken?) {
        let session: LoginSession
        do {
            session = try await ensureFreshUpstream(verified.session, authService: verified.client.authService)
        } catch let ended as SessionEnded {
            throw OAuthError.invalidToken(ended.reason)
        }
        let fresh = VerifiedAccessToken(jti: verified.jti, scope: verified.scope, issuedAt: verified.issuedAt,
                                        expiresAt: verified.expiresAt, family: verified.family, session: session,
                                        client: verified.client)
        let upstream: UpstreamToken?
        do {
            upstream = try upstreamToken(of: session)
        } catch {
            throw OAuthError.internalFailure("open upstream token: \(error)")
        }
        return (fresh, upstream)
    }

    /// `GET /oauth/validate` (SPEC §3.5). With `validateAuth: required` the caller must also
    /// authenticate as the token's environment: Basic `appKey:appSecret` of that environment, and
    /// nothing else (SPEC §9.5) — an app instance's own credentials live on a phone, and the
    /// answer carries the upstream token.
    public func validate(accessToken: String, basic: BasicCredentials?) async throws -> TokenView {
        // The caller is checked before any upstream refresh, so an unauthenticated caller cannot
        // make the broker call the identity source.
        let verified = try await verifyAccessToken(accessToken)
        if verified.client.environment.validateAuth == .required || basic != nil {
            guard let basic else {
                throw OAuthError.invalidClient("This environment requires client authentication to validate tokens.")
            }
            let caller = try ClientAuthenticator(directory: state.directory).authenticate(OAuthParameters(), basic: basic)
            guard caller.authenticated, caller.client.appKey == verified.client.appKey else {
                throw OAuthError.invalidClient("The token belongs to another environment.")
            }
        }
        let (fresh, upstream) = try await refreshingUpstream(verified)
        return tokenView(fresh, upstream: upstream)
    }
}
