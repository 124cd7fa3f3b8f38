/// Makes a value received from a client safe to quote in an error message: printable
/// ASCII only, cut to a short length, so a hostile client cannot inject control
/// characters or flood logs through our error text.
enum DisplayText {
    static func quote(_ text: String, limit: Int = 80) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if result.count >= limit { return "\"" + result + "…\"" }
            result.unicodeScalars.append((0x20...0x7E).contains(scalar.value) ? scalar : "?")
        }
        return "\"" + result + "\""
    }
}
