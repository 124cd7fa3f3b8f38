import Hummingbird
import IdentityCore
import OAuthEngine
import StoreContracts

/// Answers to a client's redirect URI, in the response mode it asked for (docs/protocol.md,
/// "Response modes").
extension Pages {
    /// `query` and `fragment`: a 302 to the answer's URL. `form_post`: a page that posts the fields
    /// to the redirect URI, so the code never stands in a URL, a history entry or a Referer.
    func answer(_ answer: ClientAnswer) -> Response {
        switch answer.mode {
        case .query, .fragment:
            return Responses.redirect(answer.url)
        case .formPost:
            return autoPosting(to: answer.redirectURI, fields: answer.fields.map { ($0.name, $0.value) },
                               title: "Returning to the app", heading: "Returning to the app…")
        }
    }

    /// The same answer for a page's script (the passkey button): `{"redirect": url}` to go to, or
    /// `{"post": {"action", "fields": [{"name", "value"}]}}` to post as a form.
    static func answerJSON(_ answer: ClientAnswer) -> [String: JSONValue] {
        guard answer.mode == .formPost else { return ["redirect": .string(answer.url)] }
        let fields = answer.fields.map { JSONValue.object(["name": .string($0.name), "value": .string($0.value)]) }
        return ["post": .object(["action": .string(answer.redirectURI), "fields": .array(fields)])]
    }
}
