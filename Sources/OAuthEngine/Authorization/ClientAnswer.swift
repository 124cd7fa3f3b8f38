import Foundation
import StoreContracts

/// An authorization response on its way to the client: a code or an error for `redirectURI`, in
/// the response mode the client asked for. Every answer names the issuer (RFC 9207 `iss`).
/// Controllers render it with one helper: a 302 for `query` and `fragment`, the auto-submitting
/// page for `form_post`.
public struct ClientAnswer: Sendable, Equatable {
    /// One response parameter, in the order sent (`code` last: the Kinvey Android SDK reads
    /// everything after `code=`).
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    public let redirectURI: String
    public let mode: ResponseMode
    public let fields: [Field]

    /// `parameters` with nil values left out.
    public init(redirectURI: String, mode: ResponseMode, _ parameters: [(String, String?)]) {
        self.redirectURI = redirectURI
        self.mode = mode
        fields = parameters.compactMap { name, value in value.map { Field(name: name, value: $0) } }
    }

    /// Where a redirect sends the browser: the fields in the query, or in the fragment for
    /// `fragment`. A `form_post` answer is a page, not a redirect; for it this is the query form
    /// (what a log line or a test reads).
    public var url: String {
        let pairs = fields.map { ($0.name, Optional($0.value)) }
        guard mode == .fragment else { return RedirectURL.build(redirectURI, pairs) }
        let encoded = pairs.compactMap { name, value in value.map { "\(name)=\(RedirectURL.encode($0))" } }.joined(separator: "&")
        return encoded.isEmpty ? redirectURI : redirectURI + "#" + encoded
    }

    /// The value of the field `name`, if sent.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }
}
