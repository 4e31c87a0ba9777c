/* Text and JSON through one call per value: JSON is built with jansson, text goes to stdout. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "out/json_print.h"
#include "util/ethtune.h"

#define JSTACK_MAX 32

/* json_mode: the document goes to stdout as JSON and no text is printed; json_tree: the
 * document is being built (JSON, or text with a recording asked for by json_record()). */
static int json_mode;
static bool json_tree, record_next;
static json_t *jstack[JSTACK_MAX];
static int jdepth = -1;
static json_t *recorded;

bool is_json_context(void)
{
	return json_mode;
}

void json_record(void)
{
	record_next = true;
}

json_t *json_take_recorded(void)
{
	json_t *j = recorded;

	recorded = NULL;
	return j;
}

void new_json_obj(int json)
{
	json_mode = json;
	json_tree = json || record_next;
	if (!json_tree)
		return;
	jstack[0] = json_object();
	jdepth = 0;
	/* Every document says which key set it follows (docs/schema/). */
	json_object_set_new(jstack[0], "schema-version", json_integer(ETHTUNE_SCHEMA_VERSION));
}

/* The finished document: kept for json_take_recorded() where a recording was asked for. */
static void end_doc(void)
{
	if (record_next) {
		json_decref(recorded);
		recorded = jstack[0];
		record_next = false;
	} else {
		json_decref(jstack[0]);
	}
	jdepth = -1;
	json_mode = 0;
	json_tree = false;
}

void delete_json_obj(void)
{
	if (!json_tree || jdepth < 0)
		return;
	if (json_mode) {
		json_dumpf(jstack[0], stdout,
			   JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		fflush(stdout);
	}
	end_doc();
}

static int dump_doc(FILE *f, void *doc)
{
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) ||
	    fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

int delete_json_obj_to(const char *path)
{
	int ret;

	if (!json_mode || jdepth < 0)
		return -EINVAL;
	ret = write_file_atomic(path, dump_doc, jstack[0]);
	end_doc();
	return ret;
}

/* Put v into the current container: under key in an object, appended in an array. */
static void jput(const char *key, json_t *v)
{
	json_t *cur;

	if (jdepth < 0) {
		json_decref(v);
		return;
	}
	cur = jstack[jdepth];
	if (json_is_array(cur))
		json_array_append_new(cur, v);
	else if (key)
		json_object_set_new(cur, key, v);
	else
		json_decref(v);
}

static void jpush(const char *key, json_t *v)
{
	if (jdepth + 1 >= JSTACK_MAX) {
		json_decref(v);
		return;
	}
	json_incref(v);
	jput(key, v);
	jstack[++jdepth] = v;
	json_decref(v);
}

void open_json_object(const char *key)
{
	if (json_tree)
		jpush(key, json_object());
}

void close_json_object(void)
{
	if (json_tree && jdepth > 0)
		jdepth--;
}

void open_json_array(enum output_type t, const char *key)
{
	if (json_tree && (t & PRINT_JSON))
		jpush(key, json_array());
	if (!json_mode && (t & PRINT_FP) && key)
		printf("%s", key);
}

void close_json_array(enum output_type t, const char *delim)
{
	if (json_tree && (t & PRINT_JSON) && jdepth > 0)
		jdepth--;
	if (!json_mode && (t & PRINT_FP) && delim)
		printf("%s", delim);
}

/* jexpr: the value as JSON; pv: as the text format's argument */
#define PRINT_BODY(jexpr, pv)                                                                      \
	do {                                                                                       \
		if (json_tree && (t & PRINT_JSON))                                                 \
			jput(key, jexpr);                                                          \
		if (!json_mode && (t & PRINT_FP) && fmt)                                           \
			printf(fmt, pv);                                                           \
	} while (0)

void print_string(enum output_type t, const char *key, const char *fmt, const char *value)
{
	PRINT_BODY(json_string(value ? value : ""), value);
}

/*
 * The value of print_uint() and print_int() is 64 bits wide whatever the caller's format says:
 * its first integer conversion is given the "ll" length ("%u" prints as "%llu", "%8lu" as
 * "%8llu"), so that "%u" cannot print the low half of a counter past 2^32. A format with no
 * integer conversion, or too long to rewrite, is used as it is.
 */
static const char *fmt_ll(const char *fmt, char *out, size_t n)
{
	const char *p = fmt;
	size_t i, head;

	if (!fmt)
		return NULL;
	while (*p && !(p[0] == '%' && p[1] != '%'))
		p += (p[0] == '%') ? 2 : 1;
	if (!*p)
		return fmt;
	p++;
	p += strspn(p, "-+ #0123456789.*");
	head = (size_t)(p - fmt);
	p += strspn(p, "hljztLq");
	if (!*p || !strchr("diouxX", *p) || head + 2 + strlen(p) + 1 > n)
		return fmt;
	memcpy(out, fmt, head);
	i = head;
	out[i++] = 'l';
	out[i++] = 'l';
	strcpy(out + i, p);
	return out;
}

void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t value)
{
	char buf[256];

	fmt = fmt_ll(fmt, buf, sizeof(buf));
	PRINT_BODY(json_integer((json_int_t)value), (unsigned long long)value);
}

void print_int(enum output_type t, const char *key, const char *fmt, int64_t value)
{
	char buf[256];

	fmt = fmt_ll(fmt, buf, sizeof(buf));
	PRINT_BODY(json_integer((json_int_t)value), (long long)value);
}

void print_float(enum output_type t, const char *key, const char *fmt, double value)
{
	PRINT_BODY(json_real(value), value);
}

void print_bool(enum output_type t, const char *key, const char *fmt, bool value)
{
	PRINT_BODY(json_boolean(value), value ? "true" : "false");
}

void print_on_off(enum output_type t, const char *key, const char *fmt, bool value)
{
	PRINT_BODY(json_boolean(value), value ? "on" : "off");
}

/* key: a missing value is absent in JSON, so only the text shows it */
void print_na(const char *key __attribute__((unused)), const char *fmt)
{
	if (!json_mode && fmt)
		printf(fmt, "n/a");
}

void print_nl(void)
{
	if (!json_mode)
		putchar('\n');
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
