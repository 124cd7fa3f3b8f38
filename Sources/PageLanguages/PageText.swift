import Foundation

/// Words a page shows, as a message of the page catalogs (docs/languages.md): the English
/// wording is the message id (`format`, with `{0}`, `{1}` … where values go), translated when
/// the page is rendered in the reader's language. Text that comes from elsewhere (an identity
/// source's question, the operator's own wording, a name) is `verbatim` and shown as is.
public struct PageText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The message id: English, with `{0}`, `{1}` … for `arguments`; the text itself when verbatim.
    public let format: String
    public let arguments: [String]
    /// Not a catalog message: shown as is in every language.
    public let isVerbatim: Bool
    /// Known only at run time (an error's description, perhaps an identity source's own words):
    /// translated when a catalog has it, and not a catalog miss when none does.
    public private(set) var isRunTime = false
    /// Sentences shown after this one (each its own message), separated by a space.
    public private(set) var following: [PageText] = []

    /// A catalog message; interpolated values become its arguments:
    /// `PageText("You are signed in to \(app).")` has the id "You are signed in to {0}.".
    public init(_ words: Words) {
        format = words.format
        arguments = words.arguments
        isVerbatim = false
    }

    /// A literal is a catalog message (as `LocalizedStringKey` in SwiftUI): `"Passkey added."`.
    public init(stringLiteral value: String) {
        self.init(Words(stringLiteral: value))
    }

    public init(stringInterpolation: Words.Interpolation) {
        self.init(Words(stringInterpolation: stringInterpolation))
    }

    /// A catalog message known only at run time (an error's description): translated when a
    /// catalog has it, else shown in English.
    public init(message: String) {
        format = message
        arguments = []
        isVerbatim = false
        isRunTime = true
    }

    /// Text shown as is (not translated).
    public init(verbatim text: String) {
        format = text
        arguments = []
        isVerbatim = true
    }

    /// The English wording, arguments filled in.
    public var english: String {
        ([isVerbatim ? format : Self.fill(format, arguments)] + following.map(\.english)).joined(separator: " ")
    }

    /// This text, then `next` (when there is one) as a sentence of its own.
    public func then(_ next: PageText?) -> PageText {
        guard let next else { return self }
        var joined = self
        joined.following.append(next)
        return joined
    }

    public var description: String { english }

    /// `format` with `{0}`, `{1}` … replaced by `arguments` (a placeholder without a value stays).
    public static func fill(_ format: String, _ arguments: [String]) -> String {
        guard !arguments.isEmpty else { return format }
        var text = format
        for (index, value) in arguments.enumerated() {
            text = text.replacingOccurrences(of: "{\(index)}", with: value)
        }
        return text
    }

    /// A message literal with interpolated values, each becoming `{n}` in the id.
    public struct Words: ExpressibleByStringInterpolation, Sendable {
        var format: String
        var arguments: [String]

        public init(stringLiteral value: String) {
            format = value
            arguments = []
        }

        public init(stringInterpolation: Interpolation) {
            format = stringInterpolation.format
            arguments = stringInterpolation.arguments
        }

        public struct Interpolation: StringInterpolationProtocol, Sendable {
            var format = ""
            var arguments: [String] = []

            public init(literalCapacity: Int, interpolationCount: Int) {
                format.reserveCapacity(literalCapacity + 4 * interpolationCount)
            }

            public mutating func appendLiteral(_ literal: String) { format += literal }

            public mutating func appendInterpolation(_ value: String) {
                format += "{\(arguments.count)}"
                arguments.append(value)
            }

            public mutating func appendInterpolation(_ value: Int) { appendInterpolation(String(value)) }
        }
    }
}
