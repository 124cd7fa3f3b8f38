import Foundation

/// Where an address is, as far as a GeoIP database knows (`server.geoip`).
public struct GeoLocation: Sendable, Equatable {
    public var country: String?
    /// The first subdivision (state, region).
    public var state: String?
    public var city: String?
    public var latitude: Double?
    public var longitude: Double?
    /// Accuracy radius in kilometres.
    public var radius: Int?

    public init(country: String? = nil, state: String? = nil, city: String? = nil, latitude: Double? = nil,
                longitude: Double? = nil, radius: Int? = nil) {
        self.country = country
        self.state = state
        self.city = city
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}

/// Locates client addresses for the QR-login confirmation screen. `languages` are the app's
/// preferred languages (from `Accept-Language`, best first) for place names.
public protocol AddressLocator: Sendable {
    func locate(_ address: String, languages: [String]) -> GeoLocation?
}

/// `Accept-Language` as language tags, best first (`q=0` dropped); at most 8.
public func preferredLanguages(_ header: String?) -> [String] {
    guard let header else { return [] }
    let ranked = header.split(separator: ",").prefix(16).compactMap { part -> (String, Double)? in
        let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let tag = pieces.first, !tag.isEmpty, tag != "*", tag.count <= 35 else { return nil }
        let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
        return quality > 0 ? (tag, quality) : nil
    }
    return Array(ranked.enumerated().sorted { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }.map(\.element.0).prefix(8))
}
