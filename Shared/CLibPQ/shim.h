#ifndef RENDEZVOUS_CLIBPQ_SHIM_H
#define RENDEZVOUS_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* PG_DIAG_* are character-literal macros Swift cannot import. */
static inline int clibpq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int clibpq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int clibpq_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int clibpq_diag_message_hint(void) { return PG_DIAG_MESSAGE_HINT; }
static inline int clibpq_diag_schema_name(void) { return PG_DIAG_SCHEMA_NAME; }
static inline int clibpq_diag_table_name(void) { return PG_DIAG_TABLE_NAME; }
static inline int clibpq_diag_column_name(void) { return PG_DIAG_COLUMN_NAME; }
static inline int clibpq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }
#endif
