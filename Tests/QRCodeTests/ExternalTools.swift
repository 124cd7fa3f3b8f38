import Foundation

/// Runs the command-line tools the round-trip tests check against (zbarimg, rsvg-convert, pngcheck,
/// python3 with pypng). Tests that need a missing tool are skipped through `.enabled(if:)`.
enum ExternalTools {
    struct Output {
        let status: Int32
        let stdout: Data
        let stderr: String
    }

    /// The absolute path of `name` on `PATH`, or nil.
    static func path(of name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let hasZbar = path(of: "zbarimg") != nil
    static let hasRsvg = path(of: "rsvg-convert") != nil
    static let hasPngcheck = path(of: "pngcheck") != nil
    /// A python3 that imports pypng: the one on `PATH`, else Debian's, where install-deps.sh puts
    /// `python3-png` (a pyenv python3 first on `PATH` has no pypng, and the test was skipped in CI).
    static let pythonWithPyPNG: String? = {
        [path(of: "python3"), "/usr/bin/python3"].compactMap { $0 }.first { python in
            FileManager.default.isExecutableFile(atPath: python) && (try? run(python, ["-c", "import png"]).status) == 0
        }
    }()
    static let hasPyPNG = pythonWithPyPNG != nil

    /// Runs `executable` with `arguments` and waits for it.
    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a tool found on `PATH`.
    static func run(tool: String, _ arguments: [String]) throws -> Output {
        guard let executable = path(of: tool) else { throw CocoaError(.fileNoSuchFile) }
        return try run(executable, arguments)
    }

    /// Decodes the QR code in an image file with `zbarimg --raw -q`, with the other symbologies
    /// turned off (a QR pattern can otherwise also read as a spurious 1-D barcode); the trailing
    /// newline zbarimg adds is removed. Returns nil when nothing was decoded.
    static func zbarDecode(_ file: URL) throws -> [UInt8]? {
        let output = try run(tool: "zbarimg", ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", file.path])
        guard output.status == 0 else { return nil }
        var bytes = [UInt8](output.stdout)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes
    }
}

/// A scratch directory removed when the value is discarded.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("qr-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to a file named `name` inside the directory and returns its URL.
    func write(_ bytes: [UInt8], named name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
