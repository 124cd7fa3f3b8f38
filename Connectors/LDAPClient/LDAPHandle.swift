import CLDAP
import Foundation

/// One libldap connection. Every method blocks, so it is only used from a blocking-work thread,
/// and by one thread at a time: ``LDAPConnectionPool`` hands it out exclusively.
public final class LDAPHandle: @unchecked Sendable {
    private var ld: OpaquePointer?
    /// The DN this connection is bound as (`nil`: anonymous, or unknown after a failed bind).
    public private(set) var boundDN: String?

    /// Opens a handle with the protocol, timeout, referral and TLS options of `server`, and runs
    /// StartTLS when asked. libldap connects lazily; StartTLS connects at once.
    init(_ server: LDAPServer) throws {
        var handle: OpaquePointer?
        let status = ldap_initialize(&handle, server.url)
        guard status == LDAP_SUCCESS, let handle else { throw LDAPError(code: status, operation: "initialize") }
        ld = handle
        try check(cldap_set_int(handle, LDAP_OPT_PROTOCOL_VERSION, LDAP_VERSION3), "set protocol version")
        try check(cldap_referrals_off(handle), "turn referrals off")
        try check(cldap_set_timeout(handle, LDAP_OPT_NETWORK_TIMEOUT, server.connectTimeoutMs), "set network timeout")
        try check(cldap_set_timeout(handle, LDAP_OPT_TIMEOUT, server.operationTimeoutMs), "set operation timeout")
        if server.usesTLS {
            if let caFile = server.caFile {
                try check(cldap_set_string(handle, LDAP_OPT_X_TLS_CACERTFILE, caFile), "set TLS CA file")
            }
            try check(cldap_set_int(handle, LDAP_OPT_X_TLS_REQUIRE_CERT, LDAP_OPT_X_TLS_DEMAND), "require TLS certificate")
            // Per-handle TLS settings only take effect in a new TLS context.
            try check(cldap_set_int(handle, LDAP_OPT_X_TLS_NEWCTX, 0), "create TLS context")
        }
        if server.startTLS && !server.url.lowercased().hasPrefix("ldaps://") {
            try check(ldap_start_tls_s(handle, nil, nil), "StartTLS")
        }
    }

    deinit {
        if let ld { ldap_unbind_ext_s(ld, nil, nil) }
    }

    /// Simple bind. Returns normally on success; throws ``LDAPError`` otherwise (code 49 for a
    /// wrong password, with AD's sub-code in `diagnostic`). Never call with an empty password:
    /// that is an unauthenticated bind, which "succeeds" (RFC 4513 §5.1.2).
    public func bind(_ credentials: LDAPCredentials) throws {
        guard !credentials.password.isEmpty else {
            throw LDAPError(code: LDAP_PARAM_ERROR, operation: "bind with an empty password refused")
        }
        boundDN = nil
        let password = Array(credentials.password.utf8)
        let status = password.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                cldap_simple_bind(ld, credentials.dn, chars.baseAddress, chars.count)
            }
        }
        try check(status, "bind")
        boundDN = credentials.dn
    }

    /// The identity the server says this connection is bound as (LDAP "Who am I?", RFC 4532):
    /// `dn:<DN>` (OpenLDAP) or `u:<DOMAIN>\<name>` (Active Directory); nil when the server does not
    /// support the operation or answers with an empty (anonymous) identity.
    public func whoAmI() throws -> String? {
        var authzid: UnsafeMutablePointer<berval>?
        let status = ldap_whoami_s(ld, &authzid, nil, nil)
        defer { if let authzid { ber_bvfree(authzid) } }
        if status == LDAP_PROTOCOL_ERROR || status == LDAP_UNWILLING_TO_PERFORM || status == LDAP_NOT_SUPPORTED { return nil }
        try check(status, "who am I")
        guard let value = authzid?.pointee, value.bv_len > 0, let bytes = value.bv_val else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(value.bv_len)), as: UTF8.self)
    }

    /// Binds as `credentials` unless this connection is already bound as that DN.
    public func ensureBound(_ credentials: LDAPCredentials) throws {
        if boundDN != credentials.dn { try bind(credentials) }
    }

    /// A synchronous search returning at most `sizeLimit` entries with the requested attributes.
    /// `noSuchObject` (the base does not exist) is an empty result, not an error.
    public func search(base: String, scope: LDAPScope, filter: String, attributes: [String],
                       sizeLimit: Int32 = 100, timeoutMs: Int) throws -> [LDAPEntry] {
        var cAttributes: [UnsafeMutablePointer<CChar>?] = attributes.map { strdup($0) }
        if attributes.isEmpty { cAttributes.append(strdup(LDAP_NO_ATTRS)) }
        cAttributes.append(nil)
        defer { cAttributes.forEach { free($0) } }
        var result: OpaquePointer?
        let status = cAttributes.withUnsafeMutableBufferPointer { buffer in
            cldap_search(ld, base, scope.rawValue, filter, buffer.baseAddress, timeoutMs, sizeLimit, &result)
        }
        defer { if let result { ldap_msgfree(result) } }
        if status == LDAP_NO_SUCH_OBJECT { return [] }
        if status != LDAP_SUCCESS && status != LDAP_SIZELIMIT_EXCEEDED { try check(status, "search") }
        var entries: [LDAPEntry] = []
        var entry = ldap_first_entry(ld, result)
        while let current = entry {
            entries.append(read(current, attributes: attributes))
            entry = ldap_next_entry(ld, current)
        }
        return entries
    }

    private func read(_ entry: OpaquePointer, attributes: [String]) -> LDAPEntry {
        var dn = ""
        if let raw = ldap_get_dn(ld, entry) {
            dn = String(cString: raw)
            ldap_memfree(raw)
        }
        var values: [String: [String]] = [:]
        for attribute in attributes {
            guard let list = ldap_get_values_len(ld, entry, attribute) else { continue }
            defer { ldap_value_free_len(list) }
            let count = ldap_count_values_len(list)
            var strings: [String] = []
            for index in 0..<count {
                let length = cldap_berval_length(list, index)
                guard let bytes = cldap_berval_bytes(list, index) else { continue }
                let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
                strings.append(String(decoding: buffer, as: UTF8.self))
            }
            values[attribute.lowercased()] = strings
        }
        return LDAPEntry(dn: dn, attributes: values)
    }

    private func check(_ status: Int32, _ operation: String) throws {
        guard status != LDAP_SUCCESS else { return }
        var diagnostic: String?
        if let ld, let message = cldap_diagnostic(ld) {
            diagnostic = String(cString: message)
            ldap_memfree(message)
        }
        throw LDAPError(code: status, operation: operation, diagnostic: diagnostic)
    }
}
