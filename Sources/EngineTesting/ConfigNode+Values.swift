import IdentityCore

extension ConfigNode {
    /// The configuration tree of `value`, as the YAML reader would have made it from the same
    /// document: strings quoted, numbers and booleans plain, maps with their keys in sorted order.
    /// For the parts of a configuration that connectors read themselves (`provider.options`),
    /// built in code.
    public init(_ value: JSONValue, keyPath: String = "") {
        let location = SourceLocation.builtInCode
        func child(_ key: String) -> String { keyPath.isEmpty ? key : "\(keyPath).\(key)" }
        switch value {
        case .string(let text): self.init(.scalar(text, quoted: true), location: location, keyPath: keyPath)
        case .int(let number): self.init(.scalar(String(number), quoted: false), location: location, keyPath: keyPath)
        case .double(let number): self.init(.scalar(String(number), quoted: false), location: location, keyPath: keyPath)
        case .bool(let flag): self.init(.scalar(flag ? "true" : "false", quoted: false), location: location, keyPath: keyPath)
        case .null: self.init(.null, location: location, keyPath: keyPath)
        case .array(let items):
            self.init(.list(items.enumerated().map { ConfigNode($0.element, keyPath: "\(keyPath)[\($0.offset)]") }),
                      location: location, keyPath: keyPath)
        case .object(let members):
            self.init(.map(members.keys.sorted().map { (key: $0, node: ConfigNode(members[$0]!, keyPath: child($0))) }),
                      location: location, keyPath: keyPath)
        }
    }
}
