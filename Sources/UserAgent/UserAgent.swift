/// What a User-Agent header says about the browser, operating system and device behind a request.
///
/// Built for showing a person where a sign-in comes from — for example the `browser`, `os`,
/// `device_type`, `device_name` and `device` fields of a Blitz-compatible QR-login API — not for
/// feature detection. Parsing never fails and never traps: only the first ``maximumInputBytes`` bytes
/// are read, and anything the header does not clearly say comes back as nil or ``DeviceType/unknown``.
///
/// ```swift
/// let agent = UserAgent(parsing: request.headers["User-Agent"] ?? "")
/// agent.browser?.description  // "Chrome 120"
/// agent.os?.description       // "macOS 10.15.7"
/// agent.deviceType.rawValue   // "pc"
/// ```
public struct UserAgent: Sendable, Hashable, Codable {
    /// Bytes of the header that are read; the rest is ignored, which bounds the parser's work.
    public static let maximumInputBytes = 1024

    /// The browser ("Chrome 120", "Safari 17.1"), or for bots and HTTP libraries their own product
    /// token ("Googlebot 2.1", "curl 8.4.0"); nil when none is recognised.
    public let browser: Software?
    /// The operating system ("Windows 10", "iOS 17.1", "Android 14", "Linux"); nil when unknown.
    public let os: Software?
    /// The kind of device; ``DeviceType/unknown`` for bots, HTTP libraries and anything unclear.
    public let deviceType: DeviceType
    /// The model as a person would name it, maker first when known: "Apple iPhone", "Google Pixel 7".
    public let deviceName: String?
    /// The model token from the header: "iPhone", "iPad", "Pixel 7", "SM-G991B", "Mac", "PC".
    public let device: String?
    /// Whether the client is a crawler, automation tool or non-browser HTTP client (curl, libraries).
    public let isAutomated: Bool

    /// Parses a User-Agent header value. Total: any string, including an empty one, gives a result.
    public init(parsing header: String) {
        let bounded = String(decoding: header.utf8.prefix(Self.maximumInputBytes), as: UTF8.self)
        let tokens = UserAgentTokens(bounded)
        let os = OSDetection.operatingSystem(in: tokens)

        if let agent = BrowserDetection.automatedAgent(in: tokens) {
            self.init(browser: agent, os: nil, deviceType: .unknown, deviceName: nil, device: nil, isAutomated: true)
            return
        }
        let isApple = ["iOS", "iPadOS", "macOS"].contains(os?.name)
        let browser = BrowserDetection.browser(in: tokens, isApplePlatform: isApple)
        if browser == nil, !tokens.isBrowserLike, os == nil {
            // curl/8.4.0, python-requests/2.31.0, Go-http-client/1.1: a tool, not a person's browser.
            let client = BrowserDetection.leadingProduct(in: tokens)
            self.init(browser: client, os: nil, deviceType: .unknown, deviceName: nil, device: nil, isAutomated: client != nil)
            return
        }
        let device = DeviceDetection.device(in: tokens, os: os)
        self.init(
            browser: browser, os: os, deviceType: device.type, deviceName: device.name, device: device.device,
            isAutomated: false)
    }

    /// Creates a value from parts already known, for tests and for values stored earlier.
    public init(
        browser: Software?, os: Software?, deviceType: DeviceType, deviceName: String?, device: String?,
        isAutomated: Bool = false
    ) {
        self.browser = browser
        self.os = os
        self.deviceType = deviceType
        self.deviceName = deviceName
        self.device = device
        self.isAutomated = isAutomated
    }
}
