import Foundation

/// Reads the files a configuration consists of or refers to (`*.yaml`, `${file:}` references):
/// only regular files, only up to a size, so `/dev/zero`, a FIFO or a stray huge file cannot make
/// loading read forever or load gigabytes.
enum ConfigFileReading {
    enum Failure: Error, Equatable {
        case notRegularFile
        case tooLarge(limit: Int)
        case unreadable
    }

    static func read(_ path: String, maxBytes: Int) -> Result<Data, Failure> {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return .failure(.unreadable) }
        if let type = attributes[.type] as? FileAttributeType, type != .typeRegular { return .failure(.notRegularFile) }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxBytes else { return .failure(.tooLarge(limit: maxBytes)) }
        // An empty file is answered here: FileManager.contents(atPath:) leaks a 4 KiB buffer on
        // empty files (found by the config fuzz target's leak check).
        if size == 0 { return .success(Data()) }
        guard let data = FileManager.default.contents(atPath: path), data.count <= maxBytes else { return .failure(.unreadable) }
        return .success(data)
    }
}
