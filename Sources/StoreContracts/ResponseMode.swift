import Foundation

/// How an authorization response reaches the client's redirect URI (OAuth 2.0 Multiple Response
/// Type Encoding Practices §2, OAuth 2.0 Form Post Response Mode): `query` (the default for
/// `response_type=code`), `fragment`, or `form_post` (a page that posts the fields, so the code
/// never stands in a URL, a history entry or a Referer).
public enum ResponseMode: String, Sendable, Codable, CaseIterable {
    case query
    case fragment
    case formPost = "form_post"
}
