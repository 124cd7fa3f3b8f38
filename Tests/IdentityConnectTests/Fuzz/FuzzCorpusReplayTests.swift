import Foundation
import FuzzEntries
import Testing

/// Every checked-in seed and every past finding (Fuzz/corpus, Fuzz/findings) runs through its
/// fuzz target on each `swift test`, without libFuzzer: a fixed finding that comes back stops the
/// test process the way it stopped the fuzzer. docs/fuzzing.md explains the targets.
@Suite("Fuzz corpora replay through their targets")
struct FuzzCorpusReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ target: FuzzTarget) -> [URL] {
        ["corpus", "findings"].flatMap { folder -> [URL] in
            let directory = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
            return ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
                .filter { !$0.lastPathComponent.hasPrefix(".") }
        }
    }

    @Test("every target has seeds", arguments: FuzzTarget.allCases)
    func seeded(_ target: FuzzTarget) {
        #expect(!Self.inputs(target).isEmpty, "Fuzz/corpus/\(target.rawValue) is empty")
    }

    @Test("seeds and past findings run through their target without a finding", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        for file in Self.inputs(target) {
            target.run(try Data(contentsOf: file))
        }
    }

    @Test("the SAML seeds reach past the signature and decryption checks (so the fuzzer starts deep)")
    func samlSeedsAreValid() throws {
        let corpus = Self.fuzzDirectory.appendingPathComponent("corpus")
        for name in ["signed-assertion.xml", "signed-response-and-assertion.xml", "encrypted-assertion.xml"] {
            let data = try Data(contentsOf: corpus.appendingPathComponent("saml-response/\(name)"))
            #expect(FuzzProbe.samlAccepted(data) == "alice@example.org", "\(name) is not accepted")
        }
        for name in ["second-assertion.xml", "doctype.xml"] {
            let data = try Data(contentsOf: corpus.appendingPathComponent("saml-response/\(name)"))
            #expect(FuzzProbe.samlAccepted(data) == nil, "\(name) was accepted")
        }
        let encrypted = try Data(contentsOf: corpus.appendingPathComponent("saml-decrypt/encrypted-assertion.xml"))
        #expect(FuzzProbe.samlDecrypted(encrypted) == "Assertion")
    }
}
