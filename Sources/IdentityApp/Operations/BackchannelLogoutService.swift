import Logging
import OAuthEngine
import ServiceLifecycle

/// Delivers back-channel logout notices (docs/protocol.md, "Back-channel logout to relying
/// parties"): once a second this instance claims the notices that are due — every instance on one
/// database does, each taking different ones — and posts their logout tokens. A round that finds
/// nothing due costs one read.
struct BackchannelLogoutService: Service {
    let notifier: BackchannelLogoutNotifier
    let logger: Logger
    var interval: Duration = .seconds(1)

    func run() async throws {
        await periodically(every: interval) {
            do {
                // A full round may mean more are due: go on at once rather than a second later.
                while !Task.isCancelled, try await notifier.deliverDue().notices == BackchannelLogoutNotifier.roundSize {}
            } catch {
                logger.warning("back-channel logout notices not read", metadata: ["error": "\(error)"])
            }
        }
    }
}
