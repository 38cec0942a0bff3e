#ifndef RENDEZVOUS_CLIBPQ_SHIM_H
#define RENDEZVOUS_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
