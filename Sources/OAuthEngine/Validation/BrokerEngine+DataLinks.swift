import Foundation
import IdentityConfig
import IdentityCore

/// Where the gateway forwards a call, with the headers it adds (SPEC §5).
public struct DataLinkTarget: Sendable {
    public let link: DataLink
    /// `datalinkHeaderMapping` headers, e.g. `X-Kinvey-Auth: <base64 upstream token>`.
    public let headers: [String: String]
    /// Every header name any `datalinkHeaderMapping` of the environment uses, lowercased: the
    /// caller's copies are removed even when this token's mapping yields no value for one, so a
    /// backend never mistakes a forged header for the broker's (SPEC §9.3).
    public let mappedHeaderNames: Set<String>
}

extension BrokerEngine {
    /// Checks the caller's token (refreshing the upstream token when due) and resolves the data
    /// link of its environment: 401 for a bad token, 404 for an unknown link, 403 when the link
    /// is not bound to the token's auth service.
    public func dataLinkTarget(name: String, accessToken: String) async throws -> DataLinkTarget {
        let (verified, upstream) = try await verifyAndRefresh(accessToken)
        guard let link = verified.client.environment.dataLinks.first(where: { $0.name == name }) else {
            throw OAuthError(.invalidRequest, "There is no data link named '\(name.prefix(64))' in this environment.", status: 404)
        }
        if let allowed = link.authServices, !allowed.contains(verified.client.service.id) {
            throw OAuthError(.accessDenied, "This data link does not accept tokens of this auth service.", status: 403)
        }
        let mapped = verified.client.entry.services.values.flatMap { $0.service.provider.datalinkHeaderMapping.values }
        return DataLinkTarget(link: link, headers: tokenView(verified, upstream: upstream).dataLinkHeaders,
                              mappedHeaderNames: Set(mapped.map { $0.lowercased() }))
    }
}
