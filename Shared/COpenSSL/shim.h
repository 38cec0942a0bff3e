#ifndef RENDEZVOUS_COPENSSL_SHIM_H
#define RENDEZVOUS_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#endif
