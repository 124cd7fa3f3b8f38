import HTTPTypes

/// Header reads and writes for the hot routes, without HTTPTypes' generic machinery.
extension HTTPFields {
    /// The value of the field `name` exactly as `self[name]` gives it (several fields of that name
    /// joined, as the subscript joins them), found by a plain loop.
    ///
    /// The subscript builds a lazy map over the fields and joins it even when there is one field;
    /// with its runtime generic-metadata lookups, that is a visible cost for the three or four
    /// reads every validation and introspection makes.
    func value(_ name: HTTPField.Name) -> String? {
        var found: String?
        for index in startIndex..<endIndex where self[index].name == name {
            if found != nil { return self[name] }  // several: the subscript's joining rules
            found = self[index].value
        }
        return found
    }

    /// Sets the field `name` to `value`: appended when there is none (every routed response but a
    /// gateway's), which costs a fraction of the subscript setter's replace-all. A cookie header
    /// goes through the subscript, which splits it into one field per cookie.
    mutating func set(_ name: HTTPField.Name, to value: String) {
        if name != .cookie, self.value(name) == nil {
            append(HTTPField(name: name, value: value))
        } else {
            self[name] = value
        }
    }
}
