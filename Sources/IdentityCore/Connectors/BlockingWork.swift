/// Runs blocking work (password hashing, libldap, xmlsec) away from the cooperative pool and
/// the NIO event loops. The application provides one backed by a thread pool.
public protocol BlockingWorkRunner: Sendable {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}
