import EngineTesting
import Foundation
import JOSE
@testable import OAuthEngine
import Testing

/// `EngineState` is a value held through one shared reference: a snapshot taken by a request
/// stays as it was when the live state is swapped or its keys are updated, and setting a part of
/// a copy leaves the original alone.
@Suite("Engine state snapshots")
struct EngineStateTests {
    @Test("a snapshot keeps its keys across updateKeys and replaceState; a copy's change stays in the copy")
    func snapshotsAreValues() async throws {
        let engine = try await EngineFixture().engine
        let before = engine.state
        let original = before.keys
        let rotated = SigningKeyRing(active: original.active, published: [])

        engine.updateKeys(rotated)
        #expect(before.keys === original, "the earlier snapshot is unchanged")
        #expect(engine.state.keys === rotated, "a new snapshot has the new keys")
        #expect(engine.state.config.directory == before.config.directory, "and the same configuration")

        var copy = engine.state
        copy.keys = original
        #expect(copy.keys === original)
        #expect(engine.state.keys === rotated, "setting a part of a copy leaves the live state alone")

        engine.replaceState(copy)
        #expect(engine.state.keys === original)
        #expect(engine.state.directory.resolve(EngineFixture.appKey) != nil)
    }
}
