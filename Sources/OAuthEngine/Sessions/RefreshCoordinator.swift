import StoreContracts

/// Runs at most one upstream refresh per session at a time in this process; concurrent callers
/// wait for the running one and share its result
/// (docs/protocol.md, "Sessions and upstream tokens").
actor RefreshCoordinator {
    private var running: [String: Task<LoginSession, any Error>] = [:]

    func run(sessionId: String, _ operation: @escaping @Sendable () async throws -> LoginSession) async throws -> LoginSession {
        if let task = running[sessionId] { return try await task.value }
        let task = Task { try await operation() }
        running[sessionId] = task
        let result = await task.result
        running[sessionId] = nil
        return try result.get()
    }
}
