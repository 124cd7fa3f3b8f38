/// The browser half of passkeys: `passkeys.js`, compiled into the library so the
/// server can serve it (or inline it under a CSP nonce) without locating a resource
/// bundle at run time.
///
/// It defines `registerPasskey(options)` and `signInWithPasskey(options)`, which read
/// ``PasskeyCreationOptions`` / ``PasskeyRequestOptions`` JSON and resolve to the JSON
/// that ``PasskeyRegistrationResponse`` / ``PasskeyAssertionResponse`` decode.
public enum PasskeysScript {
    /// The script's source text.
    public static let source = String(decoding: PackageResources.passkeys_js, as: UTF8.self)
    /// The media type to serve it with.
    public static let contentType = "text/javascript; charset=utf-8"
}
