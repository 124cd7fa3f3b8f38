// swift-tools-version:6.0
import PackageDescription

// libFuzzer harness for the broker's parsers (docs/fuzzing.md). A package of its own so the
// sanitizer build never touches the normal one: build and run it with scripts/fuzz/run.sh.
let package = Package(
    name: "identity-connect-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "identity-connect", path: "..")],
    targets: [
        .executableTarget(name: "idconnect-fuzz", dependencies: [.product(name: "FuzzEntries", package: "identity-connect")]),
    ]
)
