/// The kind of device a User-Agent comes from, in the vocabulary of Blitz Identity Provider's
/// `device_type` / `deviceType` fields (for example `"pc"` in its known-devices API), so the raw value
/// can be put into a Blitz-compatible JSON response unchanged.
public enum DeviceType: String, Sendable, Hashable, CaseIterable, Codable {
    /// An Amazon Kindle e-reader or Fire tablet (Silk browser or a `KF…` model).
    case kindle
    /// A phone other than an iPhone or a Windows Phone (Android phones, iPod touch, other mobile OSes).
    case mobile
    /// A tablet other than an iPad or a Kindle (Android tablets).
    case tablet
    /// An Apple iPhone.
    case iphone
    /// A Windows Phone / Windows 10 Mobile device.
    case windowsPhone
    /// A desktop or laptop computer: Windows, macOS, Linux, Chrome OS, BSD.
    case pc
    /// An Apple iPad that announces itself as one (iPadOS in desktop mode looks like a Mac).
    case ipad
    /// A Sony PlayStation console or handheld.
    case playStation
    /// Anything else: bots, command-line and library HTTP clients, TVs, other consoles, unparseable input.
    case unknown
}
