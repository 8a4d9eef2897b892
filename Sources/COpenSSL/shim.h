#ifndef SIMPLEX_COPENSSL_SHIM_H
#define SIMPLEX_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#endif
