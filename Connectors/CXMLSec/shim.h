// libxml2 + xmlsec1 (OpenSSL backend) for Swift. SwiftPM drops the -D flags pkg-config gives,
// so the configuration xmlsec was built with is restated here before any include; without
// XMLSEC_NO_SIZE_T every verification fails with a "processing error". Macros and globals that
// do not import into Swift are wrapped as small inline functions.
#ifndef CXMLSEC_SHIM_H
#define CXMLSEC_SHIM_H

#ifndef XMLSEC_CRYPTO_OPENSSL
#define XMLSEC_CRYPTO_OPENSSL 1
#endif
#ifndef XMLSEC_NO_SIZE_T
#define XMLSEC_NO_SIZE_T 1
#endif
#ifndef XMLSEC_NO_CRYPTO_DYNAMIC_LOADING
#define XMLSEC_NO_CRYPTO_DYNAMIC_LOADING 1
#endif
#ifndef XMLSEC_NO_GOST
#define XMLSEC_NO_GOST 1
#endif
#ifndef XMLSEC_NO_GOST2012
#define XMLSEC_NO_GOST2012 1
#endif
#ifndef XMLSEC_OPENSSL3_ENGINES
#define XMLSEC_OPENSSL3_ENGINES 1
#endif
#ifndef __XMLSEC_FUNCTION__
#define __XMLSEC_FUNCTION__ __func__
#endif

// libxml2 was built with ICU, and its encoding header would pull in the system ICU, whose enums
// clash with Foundation's own copy. Nothing here uses libxml2's ICU converters, so hide them.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlmemory.h>
#include <xmlsec/xmlsec.h>
#include <xmlsec/xmltree.h>
#include <xmlsec/xmldsig.h>
#include <xmlsec/xmlenc.h>
#include <xmlsec/keys.h>
#include <xmlsec/keysmngr.h>
#include <xmlsec/transforms.h>
#include <xmlsec/templates.h>
#include <xmlsec/errors.h>
#include <xmlsec/io.h>
#include <xmlsec/openssl/app.h>
#include <xmlsec/openssl/crypto.h>

/// `xmlFree` is a global function pointer, which Swift 6 refuses to touch.
static inline void cxmlsec_free(void *pointer) { xmlFree(pointer); }

/// The library-version check `xmlSecCheckVersion()` is a macro.
static inline int cxmlsec_check_version(void) {
    return xmlSecCheckVersionExt(XMLSEC_VERSION_MAJOR, XMLSEC_VERSION_MINOR, XMLSEC_VERSION_SUBMINOR,
                                 xmlSecCheckVersionABICompatible);
}

/// Transform and key-data ids are macros that call functions.
static inline xmlSecTransformId cxmlsec_transform_exclc14n(void) { return xmlSecTransformExclC14NId; }
static inline xmlSecTransformId cxmlsec_transform_exclc14n_comments(void) { return xmlSecTransformExclC14NWithCommentsId; }
static inline xmlSecTransformId cxmlsec_transform_c14n(void) { return xmlSecTransformInclC14NId; }
static inline xmlSecTransformId cxmlsec_transform_c14n_comments(void) { return xmlSecTransformInclC14NWithCommentsId; }
static inline xmlSecTransformId cxmlsec_transform_c14n11(void) { return xmlSecTransformInclC14N11Id; }
static inline xmlSecTransformId cxmlsec_transform_enveloped(void) { return xmlSecTransformEnvelopedId; }
static inline xmlSecTransformId cxmlsec_transform_sha1(void) { return xmlSecOpenSSLTransformSha1GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_sha256(void) { return xmlSecOpenSSLTransformSha256GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_sha384(void) { return xmlSecOpenSSLTransformSha384GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_sha512(void) { return xmlSecOpenSSLTransformSha512GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_sha1(void) { return xmlSecOpenSSLTransformRsaSha1GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_sha256(void) { return xmlSecOpenSSLTransformRsaSha256GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_sha384(void) { return xmlSecOpenSSLTransformRsaSha384GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_sha512(void) { return xmlSecOpenSSLTransformRsaSha512GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_ecdsa_sha256(void) { return xmlSecOpenSSLTransformEcdsaSha256GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_ecdsa_sha384(void) { return xmlSecOpenSSLTransformEcdsaSha384GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_ecdsa_sha512(void) { return xmlSecOpenSSLTransformEcdsaSha512GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_oaep(void) { return xmlSecOpenSSLTransformRsaOaepGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_rsa_pkcs1(void) { return xmlSecOpenSSLTransformRsaPkcs1GetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes128_cbc(void) { return xmlSecOpenSSLTransformAes128CbcGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes192_cbc(void) { return xmlSecOpenSSLTransformAes192CbcGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes256_cbc(void) { return xmlSecOpenSSLTransformAes256CbcGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes128_gcm(void) { return xmlSecOpenSSLTransformAes128GcmGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes192_gcm(void) { return xmlSecOpenSSLTransformAes192GcmGetKlass(); }
static inline xmlSecTransformId cxmlsec_transform_aes256_gcm(void) { return xmlSecOpenSSLTransformAes256GcmGetKlass(); }

/// The transform ids a context may use are a list; appending to it is the allow-list.
static inline int cxmlsec_allow(xmlSecPtrListPtr list, xmlSecTransformId id) {
    return xmlSecPtrListAdd(list, (void *)id);
}

/// Key-data ids (what a KeyInfo may be read as) are macros too.
static inline xmlSecKeyDataId cxmlsec_keydata_encryptedkey(void) { return xmlSecKeyDataEncryptedKeyId; }

/// Whether a loaded key is RSA, and its size in bits (RSA modulus, EC curve).
static inline int cxmlsec_key_is_rsa(xmlSecKeyPtr key) {
    return key != NULL && key->value != NULL && key->value->id == xmlSecOpenSSLKeyDataRsaId;
}
static inline unsigned int cxmlsec_key_bits(xmlSecKeyPtr key) {
    return (key != NULL && key->value != NULL) ? (unsigned int)xmlSecKeyDataGetSize(key->value) : 0;
}

/// The key-data classes a KeyInfo may be read as are a list as well.
static inline int cxmlsec_allow_keydata(xmlSecPtrListPtr list, xmlSecKeyDataId id) {
    return xmlSecPtrListAdd(list, (void *)id);
}

/// Key usage flags are enum values combined as unsigned ints.
static inline xmlSecKeyDataFormat cxmlsec_format_pem(void) { return xmlSecKeyDataFormatPem; }
static inline xmlSecKeyDataFormat cxmlsec_format_cert_pem(void) { return xmlSecKeyDataFormatCertPem; }

#endif
