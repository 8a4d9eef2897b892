#ifndef SIMPLEX_CZSTD_SHIM_H
#define SIMPLEX_CZSTD_SHIM_H
#include <zstd.h>
#endif
