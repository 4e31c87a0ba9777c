/* One output path for text and JSON, after iproute2's json_print model. */
#ifndef ETHTUNE_JSON_PRINT_H
#define ETHTUNE_JSON_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

enum output_type {
	PRINT_FP = 1,	/* text only */
	PRINT_JSON = 2, /* JSON only */
	PRINT_ANY = 3,	/* both */
};

/* Version of the JSON key set (docs/schema/), the first key of every document; bump it when a key
 * is renamed, removed or changes type or unit. */
#define ETHTUNE_SCHEMA_VERSION 1

/* Start a document: json != 0 selects JSON, collected and written by delete_json_obj(). */
void new_json_obj(int json);
void delete_json_obj(void);
/* The JSON document to path instead of stdout, whole or not at all (a temporary file renamed
 * over it after fsync); 0 or -errno. Ends the document as delete_json_obj() does. */
int delete_json_obj_to(const char *path);
bool is_json_context(void);
/* Build the next document as JSON even when it prints text, and keep it when it ends: what a
 * report (--html) is drawn from, so text and JSON stay as they are. */
void json_record(void);
/* The document kept since json_record() (the caller owns it), or NULL. */
json_t *json_take_recorded(void);

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(enum output_type t, const char *key);
void close_json_array(enum output_type t, const char *delim);

/* key is the JSON key; fmt is the text format (NULL: no text). */
void print_string(enum output_type t, const char *key, const char *fmt, const char *value);
void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t value);
void print_int(enum output_type t, const char *key, const char *fmt, int64_t value);
void print_float(enum output_type t, const char *key, const char *fmt, double value);
void print_bool(enum output_type t, const char *key, const char *fmt, bool value);
/* "on"/"off" in text, true/false in JSON. */
void print_on_off(enum output_type t, const char *key, const char *fmt, bool value);
/* A missing value: fmt gets "n/a" in text; nothing in JSON. */
void print_na(const char *key, const char *fmt);
/* Text-only helpers. */
void print_nl(void);
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
