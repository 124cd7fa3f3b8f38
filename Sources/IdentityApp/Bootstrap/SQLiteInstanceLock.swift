import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a second `idconnect serve` off a SQLite database another one serves (docs/operations.md,
/// "SQLite"). Two processes on one file would each keep their own login-throttle counters and
/// caches in memory; several instances need PostgreSQL. The lock is an exclusive `flock` on
/// `<database>.lock` (0600), never on the database itself: closing any descriptor of the database
/// file would drop SQLite's own POSIX locks. The kernel releases it when the process ends, however
/// it ends; operator commands (`idconnect sessions`, `mfa`, …) do not take it.
public final class SQLiteInstanceLock: Sendable {
    private let descriptor: Int32
    public let path: String

    /// Takes the lock of the database at `databasePath`, creating the database's directory (0700)
    /// and the lock file as needed; throws a `BootstrapError` saying who holds it otherwise.
    public init(databasePath: String) throws {
        let url = URL(fileURLWithPath: databasePath)
        let directory = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        path = url.path + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BootstrapError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EWOULDBLOCK {
                throw BootstrapError("""
                    another idconnect serve is using the SQLite database \(url.path) (it holds \(path)); \
                    stop it first, or use PostgreSQL to run several instances (docs/operations.md)
                    """)
            }
            throw BootstrapError("cannot lock \(path): \(String(cString: strerror(reason)))")
        }
        self.descriptor = descriptor
    }

    /// Lets go of the lock (also when the process ends).
    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
