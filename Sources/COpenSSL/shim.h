// Swift's view of Debian's OpenSSL 3 libcrypto (libssl-dev, pkg-config name "libcrypto"), used
// for one thing: RS256 signatures of the broker's own tokens (JOSE's OpenSSLRSASigner). OpenSSL 3
// signs RSA-2048 about twice as fast as the BoringSSL inside swift-crypto on the CPUs this runs
// on (docs/benchmarks-history.md). The process already loads this library for xmlsec (SAML).
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#endif
