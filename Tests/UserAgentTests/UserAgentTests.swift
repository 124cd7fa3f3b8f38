import Testing
import UserAgent

@Suite("User-Agent parsing")
struct UserAgentTests {
    static let allCases = desktopAgents + appleMobileAgents + androidAgents + otherAgents

    @Test("the table covers at least 40 real headers")
    func tableSize() {
        #expect(Self.allCases.count >= 40)
    }

    @Test("parses a real User-Agent", arguments: allCases)
    func parses(_ expected: UserAgentCase) {
        let agent = UserAgent(parsing: expected.header)
        #expect(agent.browser?.description == expected.browser)
        #expect(agent.os?.description == expected.os)
        #expect(agent.deviceType == expected.type)
        #expect(agent.device == expected.device)
        #expect(agent.deviceName == expected.deviceName)
    }

    @Test("bots and HTTP tools are marked automated, browsers are not")
    func automation() {
        #expect(UserAgent(parsing: "curl/8.4.0").isAutomated)
        #expect(UserAgent(parsing: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)").isAutomated)
        #expect(!UserAgent(parsing: desktopAgents[0].header).isAutomated)
        #expect(!UserAgent(parsing: "").isAutomated)
    }

    @Test("device types use Blitz's raw values")
    func rawValues() {
        #expect(DeviceType.allCases.map(\.rawValue) == [
            "kindle", "mobile", "tablet", "iphone", "windowsPhone", "pc", "ipad", "playStation", "unknown",
        ])
    }

    @Test("10 KB of junk gives nothing")
    func junk() {
        var generator = SplitMix64(seed: 0x5EED)
        let bytes = (0..<10_240).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let agent = UserAgent(parsing: String(decoding: bytes, as: UTF8.self))
        #expect(agent == UserAgent(browser: nil, os: nil, deviceType: .unknown, deviceName: nil, device: nil))
    }

    @Test("structured junk of any length never traps and yields short fields")
    func fuzz() {
        var generator = SplitMix64(seed: 42)
        let alphabet = Array("()/;; .,_-0123456789AaMozilla/5.0 (Linux; Android iPhone OS 1_2 Chrome/ Silk PlayStation \u{0}\u{7F}é漢😀")
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 3_000)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            let agent = UserAgent(parsing: text)
            for field in [agent.browser?.description, agent.os?.description, agent.device, agent.deviceName] {
                #expect((field?.count ?? 0) <= 120)
            }
        }
    }
}

/// A small, seedable generator so the junk inputs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
