/// The `provider` section of an auth service (docs/configuration.md, "provider"). `options` and
/// `authentication` stay as configuration nodes: each connector factory reads them strictly with
/// ``ConfigReader``.
public struct ProviderSettings: Sendable {
    public var type: String
    public var remoteService: String?
    public var authentication: ConfigNode?
    public var options: ConfigNode?
    /// `nil` means the default set (see the data-link rules).
    public var allowedAttributes: [String]?
    public var datalinkHeaderMapping: [String: String]
    /// The provider node itself, for problems about the whole section.
    public var node: ConfigNode

    public init(type: String, remoteService: String?, authentication: ConfigNode?, options: ConfigNode?,
                allowedAttributes: [String]?, datalinkHeaderMapping: [String: String], node: ConfigNode) {
        self.type = type
        self.remoteService = remoteService
        self.authentication = authentication
        self.options = options
        self.allowedAttributes = allowedAttributes
        self.datalinkHeaderMapping = datalinkHeaderMapping
        self.node = node
    }

    /// A problem located at `key` under this provider.
    public func problem(_ key: String, _ reason: String) -> ConfigProblem {
        let target = node[key] ?? node
        let path = node[key] == nil ? "\(node.keyPath).\(key)" : target.keyPath
        return ConfigProblem(location: target.location, keyPath: path, reason: reason)
    }
}
