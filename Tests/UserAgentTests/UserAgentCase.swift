import Testing
import UserAgent

/// One real User-Agent header and what the parser should report for it.
struct UserAgentCase: Sendable, CustomTestStringConvertible {
    let label: String
    let header: String
    let browser: String?
    let os: String?
    let type: DeviceType
    let device: String?
    let deviceName: String?

    init(
        _ label: String, _ header: String, browser: String?, os: String?, type: DeviceType,
        device: String? = nil, name deviceName: String? = nil
    ) {
        self.label = label
        self.header = header
        self.browser = browser
        self.os = os
        self.type = type
        self.device = device
        self.deviceName = deviceName
    }

    var testDescription: String { label }
}
