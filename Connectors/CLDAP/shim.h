// Small inline helpers over OpenLDAP's libldap for Swift: the option setters that take
// pointers to C structs or pointer-valued macros (LDAP_OPT_OFF, LDAP_SASL_SIMPLE) do not
// import, so they are wrapped here. Every function is a thin call with no state of its own.
#ifndef CLDAP_SHIM_H
#define CLDAP_SHIM_H

#include <stddef.h>
#include <sys/time.h>
#include <lber.h>
#include <ldap.h>

/// Sets an integer-valued option on a handle (or globally when `ld` is NULL).
static inline int cldap_set_int(LDAP *ld, int option, int value) {
    return ldap_set_option(ld, option, &value);
}

/// Sets a string-valued option (file paths for the TLS options).
static inline int cldap_set_string(LDAP *ld, int option, const char *value) {
    return ldap_set_option(ld, option, value);
}

/// Sets a timeval-valued option (LDAP_OPT_NETWORK_TIMEOUT, LDAP_OPT_TIMEOUT) from milliseconds.
static inline int cldap_set_timeout(LDAP *ld, int option, long milliseconds) {
    struct timeval tv;
    tv.tv_sec = milliseconds / 1000;
    tv.tv_usec = (milliseconds % 1000) * 1000;
    return ldap_set_option(ld, option, &tv);
}

/// Turns referral chasing off on the handle.
static inline int cldap_referrals_off(LDAP *ld) {
    return ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
}

/// A simple bind with a password of `length` bytes (which may contain NUL bytes).
static inline int cldap_simple_bind(LDAP *ld, const char *dn, const char *password, size_t length) {
    struct berval credentials;
    credentials.bv_val = (char *)password;
    credentials.bv_len = length;
    return ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &credentials, NULL, NULL, NULL);
}

/// The server's diagnostic text for the last operation (AD puts its "data 52e" codes here), or NULL.
/// Free with ldap_memfree.
static inline char *cldap_diagnostic(LDAP *ld) {
    char *message = NULL;
    if (ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &message) != LDAP_OPT_SUCCESS) return NULL;
    return message;
}

/// A synchronous search with a time limit in milliseconds and a size limit.
static inline int cldap_search(LDAP *ld, const char *base, int scope, const char *filter, char **attributes,
                               long milliseconds, int sizeLimit, LDAPMessage **result) {
    struct timeval tv;
    tv.tv_sec = milliseconds / 1000;
    tv.tv_usec = (milliseconds % 1000) * 1000;
    return ldap_search_ext_s(ld, base, scope, filter, attributes, 0, NULL, NULL, &tv, sizeLimit, result);
}

/// The length and bytes of the `index`th value of a berval array.
static inline size_t cldap_berval_length(struct berval **values, int index) { return values[index]->bv_len; }
static inline const char *cldap_berval_bytes(struct berval **values, int index) { return values[index]->bv_val; }

#endif
