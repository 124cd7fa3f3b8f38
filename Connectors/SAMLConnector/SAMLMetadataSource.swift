import ConnectorHTTP
import Foundation
import IdentityCore
import Synchronization

/// IdP metadata named by URL (`idpMetadataUrl`, docs/connectors/saml.md, "IdP metadata"): how to
/// fetch it, and when the next fetch is due. A success is good for `interval`; after a failure the
/// broker tries again within five minutes, keeping the last good copy meanwhile.
final class SAMLMetadataSource: Sendable {
    let url: String
    /// Where `idpMetadataUrl` is configured (problems found by `config check` name it).
    let site: ConfigSite
    let interval: TimeInterval
    /// Checks the metadata's own signature (`idpMetadataCertificate`), when set.
    let verifier: XMLSignatureVerifier?
    let http: UpstreamHTTP

    /// How soon a failed fetch is tried again (at most `interval`).
    static let retryAfterFailure: TimeInterval = 300

    private struct Schedule {
        var restoreTried = false
        var lastAttempt: Date?
        var lastFailed = false
        /// When the copy in use was fetched (by this instance or another).
        var inUseFetchedAt: Date?
    }

    private let schedule = Mutex(Schedule())

    init(url: String, site: ConfigSite, interval: TimeInterval, verifier: XMLSignatureVerifier?, http: UpstreamHTTP) {
        self.url = url
        self.site = site
        self.interval = interval
        self.verifier = verifier
        self.http = http
    }

    /// The key of the last good copy in ``ConnectorDocumentStore`` (shared by auth services and
    /// instances that name the same URL).
    var storageKey: String { "saml-idp-metadata:" + url }

    /// True once: whether to restore the last good copy from storage now.
    func takeRestoreTurn() -> Bool {
        schedule.withLock { state in
            defer { state.restoreTried = true }
            return !state.restoreTried
        }
    }

    func isDue(at now: Date) -> Bool {
        schedule.withLock { state in
            guard let last = state.lastAttempt else { return true }
            return now >= last.addingTimeInterval(state.lastFailed ? min(interval, Self.retryAfterFailure) : interval)
        }
    }

    /// Whether a copy fetched at `fetchedAt` is newer than the one in use and still fresh.
    func isFresherShared(fetchedAt: Date, now: Date) -> Bool {
        schedule.withLock { state in
            fetchedAt > (state.inUseFetchedAt ?? .distantPast) && now < fetchedAt.addingTimeInterval(interval)
        }
    }

    func noteInUse(fetchedAt: Date) { schedule.withLock { $0.inUseFetchedAt = fetchedAt } }

    /// Records an attempt; `nil` outcome keeps the schedule of the last one (a copy taken from storage).
    func noteAttempt(at now: Date, failed: Bool) {
        schedule.withLock { state in
            state.lastAttempt = now
            state.lastFailed = failed
        }
    }

    /// The document at ``url``: HTTP 200 within the connector timeouts and 512 KiB.
    func download() async throws -> Data {
        let answer = try await http.get(url, accept: "application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8",
                                        what: "IdP metadata endpoint")
        guard answer.status == 200 else {
            throw IdPMetadataError("the IdP metadata endpoint answered HTTP \(answer.status)")
        }
        return answer.body
    }

    /// A problem description safe for logs.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as ConnectorFailure: failure.message + (failure.debug.map { " (\($0))" } ?? "")
        case let problem as IdPMetadataError: problem.description
        default: "\(error)"
        }
    }
}
