#ifndef RENDEZVOUS_COPENSSL_SHIM_H
#define RENDEZVOUS_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/hmac.h>

/* The functions below wrap OpenSSL macros (SSL_ctrl / BIO_ctrl / variadic calls) that Swift
   cannot import. Each returns what the macro returns. */

/// SSL_CTX_set_min_proto_version: 1 on success.
static inline int copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// SSL_CTX_set_mode(ctx, ENABLE_PARTIAL_WRITE | ACCEPT_MOVING_WRITE_BUFFER): for non-blocking I/O
/// where SSL_write may take part of a buffer and a retry may pass the same bytes at a new address.
static inline long copenssl_ctx_set_nonblocking_write_modes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// SSL_CTX_set_options(NO_RENEGOTIATION | IGNORE_UNEXPECTED_EOF | NO_COMPRESSION).
/// IGNORE_UNEXPECTED_EOF turns a TCP close without close_notify into SSL_ERROR_ZERO_RETURN;
/// HTTP/2 frames are self-delimiting, so a truncation attack cannot forge a complete frame.
static inline uint64_t copenssl_ctx_set_default_options(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_COMPRESSION);
}

/// SSL_CTX_add1_chain_cert: 1 on success; the caller keeps its reference to `x509`.
static inline int copenssl_ctx_add1_chain_cert(SSL_CTX *ctx, X509 *x509) {
    return (int)SSL_CTX_add1_chain_cert(ctx, x509);
}

/// SSL_set_tlsext_host_name (SNI): 1 on success.
static inline int copenssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// BIO_get_mem_data: the length of a memory BIO's contents, `*data` pointing at them.
static inline long copenssl_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// BIO_clear_retry_flags / BIO_set_retry_read / BIO_set_retry_write, for a custom socket BIO.
static inline void copenssl_bio_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }
static inline void copenssl_bio_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void copenssl_bio_set_retry_write(BIO *bio) { BIO_set_retry_write(bio); }

/// Marks a custom BIO as having read end-of-file, which BIO_eof (and so OpenSSL's
/// SSL_OP_IGNORE_UNEXPECTED_EOF handling) reads back through BIO_CTRL_EOF.
static inline void copenssl_bio_set_eof(BIO *bio) { BIO_set_flags(bio, BIO_FLAGS_IN_EOF); }
static inline int copenssl_bio_is_eof(BIO *bio) { return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0; }

/// EVP_EC_gen("P-256"): a fresh EC P-256 key pair, or NULL.
static inline EVP_PKEY *copenssl_ec_p256_generate(void) {
    return EVP_EC_gen("P-256");
}

/// Adds an X509v3 extension named by OpenSSL's short name or by its dotted OID (for one OpenSSL
/// has no name for), with a value in OpenSSL config syntax (e.g. "DNS:localhost,IP:127.0.0.1",
/// or the generic "ASN1:NULL"), to a certificate issued by `issuer` (the certificate itself
/// when self-issued). 1 on success.
static inline int copenssl_x509_add_extension_oid(X509 *cert, X509 *issuer, const char *name, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_nconf(NULL, &ctx, name, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

/// The same, for an extension OpenSSL knows by `nid`.
static inline int copenssl_x509_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    const char *name = OBJ_nid2sn(nid);
    return name == NULL ? 0 : copenssl_x509_add_extension_oid(cert, issuer, name, value);
}

/// 1 when `cert` carries an extension with the dotted OID `oid`, 0 when not, -1 for a bad OID.
static inline int copenssl_x509_has_extension(const X509 *cert, const char *oid) {
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    if (object == NULL) return -1;
    int index = X509_get_ext_by_OBJ(cert, object, -1);
    ASN1_OBJECT_free(object);
    return index >= 0 ? 1 : 0;
}

/// The certificate at `depth` of the chain X509_verify_cert built (0: the leaf), or NULL.
static inline X509 *copenssl_verified_chain_certificate(X509_STORE_CTX *ctx, int depth) {
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
    if (chain == NULL || depth < 0 || depth >= sk_X509_num(chain)) return NULL;
    return sk_X509_value(chain, depth);
}

/// sk_X509_new_null / sk_X509_push / sk_X509_free (type-checking macros over OPENSSL_sk_*).
/// The stack holds borrowed certificates: freeing it leaves them alone.
static inline STACK_OF(X509) *copenssl_sk_x509_new_null(void) { return sk_X509_new_null(); }
static inline int copenssl_sk_x509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void copenssl_sk_x509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
#endif
