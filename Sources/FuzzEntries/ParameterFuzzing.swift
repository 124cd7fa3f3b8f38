import Foundation
import OAuthEngine

/// Form and JSON request bodies, as every OAuth endpoint reads them.
enum ParameterFuzzing {
    /// Decoding refuses bad percent-encoding with an error; what it accepts, encoded again and
    /// decoded again, gives the same pairs (nothing is lost or invented on the way).
    static func form(_ data: Data) {
        guard let text = String(data: data, encoding: .utf8),
              let pairs = try? ParameterDecoding.form(text) else { return }
        let encoded = pairs.map { RedirectURL.encode($0.0) + "=" + RedirectURL.encode($0.1) }.joined(separator: "&")
        guard let again = try? ParameterDecoding.form(encoded) else {
            return require(false, "re-encoded pairs no longer decode: \(encoded.prefix(200))")
        }
        require(again.count == pairs.count && zip(again, pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
                "form decoding does not round-trip")
        check(pairs)
    }

    /// A JSON body: a flat object or a clear refusal, then the same duplicate and size rules.
    static func json(_ data: Data) {
        guard let pairs = try? ParameterDecoding.json(data) else { return }
        check(pairs)
    }

    /// What the endpoints build from the pairs: no repeats, no oversized values.
    private static func check(_ pairs: [(String, String)]) {
        guard let parameters = try? OAuthParameters(pairs: pairs) else { return }
        for (name, value) in parameters.pairs where name != "resource" {
            require(value.utf8.count <= OAuthParameters.maxValueLength, "an oversized value was accepted")
            // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
            require(parameters[name] == (value.isEmpty ? nil : value), "a parameter reads back differently")
        }
    }
}
