import Foundation

/// The `otpauth://totp/…` URI authenticator apps scan from a QR code (the Key URI Format of
/// Google Authenticator, which every app follows):
/// `otpauth://totp/{issuer}:{account}?secret={base32}&issuer={issuer}&algorithm=SHA1&digits=6&period=30`.
public enum OTPAuthURI {
    /// Builds the URI. The label's issuer and account are percent-encoded (a `:` inside either
    /// would split the label); the `issuer` parameter repeats the issuer, as apps prefer.
    public static func totp(issuer: String, account: String, secret: [UInt8], digits: Int = 6, period: Int = 30) -> String {
        let label = encode(issuer) + ":" + encode(account)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(encode(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
