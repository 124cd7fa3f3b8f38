import ServiceLifecycle

/// Runs `body` every `interval` until the task is cancelled or the service group shuts down
/// gracefully. The sleep wakes at once on graceful shutdown, so SIGTERM is not held up by the
/// interval. The loop of the broker's background services (housekeeping, key watch, metadata).
func periodically(every interval: Duration, _ body: () async -> Void) async {
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
        do {
            try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        } catch {
            return
        }
        await body()
    }
}
