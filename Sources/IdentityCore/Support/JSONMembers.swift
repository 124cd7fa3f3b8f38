/// A JSON object whose members are written in the order they were given: an endpoint's answer
/// with a fixed shape (introspection's RFC 7662 members).
///
/// Building such an answer as a `[String: JSONValue]` hashed every key into the dictionary and
/// then sorted the members to write them, on every introspection; here the members
/// stay an array and are written as they stand. Keys must be distinct (the literal is written by
/// hand, and a JSON object with a repeated name means different things to different parsers).
public struct JSONMembers: Sendable, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The member named `key`, if any (a linear search: these objects have a dozen members).
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// Adds a member at the end; `key` must not be there yet.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    /// Compact JSON, members in their order.
    public var serialized: [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256)
        output.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            member.value.write(into: &output)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}
