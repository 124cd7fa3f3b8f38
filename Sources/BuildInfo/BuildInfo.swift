/// Which build of Identity Connect is running: the release version and the git commit it was built
/// from. `idconnect --version` prints them, `serve` prints them on start, and `/metrics` carries
/// them as `idconnect_build_info` (docs/operations.md, "Versions").
public enum BuildInfo {
    /// The release version, raised by hand at each release (semantic versioning).
    public static let version = "0.3.0"
    /// The commit's short hash, with `+changes` when tracked files differed from it, or `unknown`
    /// when the source was not a git checkout and `IDCONNECT_BUILD_COMMIT` was not set.
    public static let commit = BuildCommit.value
    /// `0.3.0 (commit 1a2b3c4d5e6f)`.
    public static var summary: String { "\(version) (commit \(commit))" }
}
