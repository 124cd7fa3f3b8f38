import IdentityConfig

/// Scope handling: the broker grants the scopes it knows and ignores others (RFC 6749 §3.3).
public enum Scopes {
    public static let supported: [String] = ["openid", "profile", "email", "groups", "roles", "offline_access", "native"]

    /// The granted scope string for a requested one: known values (`supported`, and the
    /// auth service's own `extra` scopes), each once, in request order.
    public static func grant(_ requested: String?, extra: [String] = []) -> String {
        var seen: Set<String> = []
        let granted = (requested ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
            .filter { (supported.contains($0) || extra.contains($0)) && seen.insert($0).inserted }
        return granted.joined(separator: " ")
    }

    /// As ``grant(_:extra:)``, narrowed to `allowed` when the client has a fixed scope (an app
    /// instance's software statement); RFC 6749 §3.3 lets the server grant less than asked.
    public static func grant(_ requested: String?, within allowed: String?, extra: [String] = []) -> String {
        let granted = grant(requested, extra: extra)
        guard let allowed else { return granted }
        return granted.split(separator: " ").filter { contains(allowed, String($0)) }.joined(separator: " ")
    }

    public static func contains(_ scope: String, _ value: String) -> Bool {
        scope.split(separator: " ").contains { $0 == value }
    }

    /// Scopes a client may ask for beyond `supported`: its auth service's QR-login scope,
    /// `device_sso` with `nativeSSO`, and the API scopes it is allowed.
    public static func extra(for client: ResolvedClient) -> [String] {
        (client.service.qrLogin.map { [$0.scope] } ?? []) + (client.service.nativeSSO ? [NativeSSO.scope] : [])
            + client.apiResources.scopes
    }
}
