import Foundation
import FuzzEntries

/// libFuzzer's entry points. The target comes from `IDC_FUZZ_TARGET` (one of `FuzzTarget`'s raw
/// values); scripts/fuzz/run.sh sets it and passes the corpus directories.
nonisolated(unsafe) var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = ProcessInfo.processInfo.environment["IDC_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set IDC_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let target = selected else { return 0 }
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    guard data.count <= target.maxLength else { return -1 }  // -1: not added to the corpus
    target.run(data)
    return 0
}

/// libFuzzer's driver, exported by its runtime.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<CInt>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt) -> CInt

/// SwiftPM links an executable's `main` to `<module>_main`; this one hands control to libFuzzer's
/// driver (the harness has no Swift `main` of its own: it is built with `-parse-as-library`).
@_cdecl("idconnect_fuzz_main")
public func harnessMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { start, size in testOneInput(start, size) }
}
