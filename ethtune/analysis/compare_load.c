/* compare's inputs: a matrix result file, or a folder of them (one a host), read into results. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "analysis/compare.h"

#define CMP_KEY_MAX 512

/* One line "name: problem" in err; -EINVAL. */
static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
{
	va_list ap;
	int k;

	k = snprintf(err, errlen, "%s: ", name);
	if (k < 0 || (size_t)k >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + k, errlen - k, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void cmp_params_str(const struct cmp_cell *c, char *buf, size_t len)
{
	size_t k = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < c->nparams && k < len; i++) {
		int w = snprintf(buf + k, len - k, "%s%s=%s", i ? " " : "", c->params[i].key,
				 c->params[i].val);

		if (w < 0)
			break;
		k += (size_t)w;
	}
	if (!c->nparams && len)
		snprintf(buf, len, "(no params)");
}

bool cmp_params_equal(const struct cmp_cell *a, const struct cmp_cell *b)
{
	unsigned int i, j;

	if (a->nparams != b->nparams)
		return false;
	for (i = 0; i < a->nparams; i++) {
		for (j = 0; j < b->nparams; j++)
			if (!strcmp(a->params[i].key, b->params[j].key))
				break;
		if (j == b->nparams || strcmp(a->params[i].val, b->params[j].val))
			return false;
	}
	return true;
}

static int env_add(struct cmp_result *r, unsigned int *cap, const char *key, json_t *v)
{
	struct cmp_env *e;

	if (r->nenv == *cap) {
		unsigned int nc = *cap ? 2 * *cap : 32;
		struct cmp_env *ne = realloc(r->env, nc * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		r->env = ne;
		*cap = nc;
	}
	e = &r->env[r->nenv];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	if (json_is_string(v)) {
		e->kind = CMP_ENV_STRING;
		e->text = strdup(json_string_value(v));
	} else {
		e->text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(10));
		if (json_is_integer(v)) {
			e->kind = CMP_ENV_INT;
			e->num = (double)json_integer_value(v);
		} else if (json_is_real(v)) {
			e->kind = CMP_ENV_REAL;
			e->num = json_real_value(v);
		} else if (json_is_boolean(v)) {
			e->kind = CMP_ENV_BOOL;
			e->num = json_is_true(v);
		} else {
			e->kind = CMP_ENV_OTHER;
		}
	}
	if (!e->key || !e->text) {
		free(e->key);
		free(e->text);
		return -ENOMEM;
	}
	r->nenv++;
	return 0;
}

static int flatten(struct cmp_result *r, unsigned int *cap, char *key, size_t len, json_t *v);

/* The leaves of x under key[0..len) + ".name" (no dot at the top). */
static int flatten_member(struct cmp_result *r, unsigned int *cap, char *key, size_t len,
			  const char *name, json_t *x)
{
	int w = snprintf(key + len, CMP_KEY_MAX - len, "%s%s", len ? "." : "", name);
	int ret;

	if (w < 0 || len + w >= CMP_KEY_MAX)
		return -E2BIG;
	ret = flatten(r, cap, key, len + w, x);
	key[len] = '\0';
	return ret;
}

/* Leaves of v under key[0..len), objects by ".name", arrays by ".index"; an empty object or
 * array is a leaf ("{}", "[]"). */
static int flatten(struct cmp_result *r, unsigned int *cap, char *key, size_t len, json_t *v)
{
	const char *k;
	char idx[24];
	json_t *x;
	size_t i;
	int ret = 0;

	if (json_is_object(v) && json_object_size(v)) {
		json_object_foreach(v, k, x)
		{
			ret = flatten_member(r, cap, key, len, k, x);
			if (ret)
				break;
		}
		return ret;
	}
	if (json_is_array(v) && json_array_size(v)) {
		json_array_foreach(v, i, x)
		{
			snprintf(idx, sizeof(idx), "%zu", i);
			ret = flatten_member(r, cap, key, len, idx, x);
			if (ret)
				break;
		}
		return ret;
	}
	return env_add(r, cap, key, v);
}

/* An optional string member: 0 (NULL when absent) or -EINVAL. */
static int opt_str(json_t *o, const char *key, const char **out, const char *name,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return bad(err, errlen, name, "%s\"%s\" is not a string", where, key);
	*out = json_string_value(v);
	return 0;
}

static int parse_matrix(json_t *m, struct cmp_result *r, const char *name, char *err, size_t errlen)
{
	json_t *dims, *d;
	const char *k;
	uint64_t planned = 1;

	if (!m)
		return 0;
	if (!json_is_object(m))
		return bad(err, errlen, name, "\"matrix\" is not an object");
	if (opt_str(m, "name", &r->matrix, name, "matrix: ", err, errlen) ||
	    opt_str(m, "test", &r->test, name, "matrix: ", err, errlen) ||
	    opt_str(m, "unit", &r->unit, name, "matrix: ", err, errlen))
		return -EINVAL;
	dims = json_object_get(m, "dimensions");
	if (!dims)
		return 0;
	if (!json_is_object(dims))
		return bad(err, errlen, name, "matrix: \"dimensions\" is not an object");
	json_object_foreach(dims, k, d)
	{
		if (!json_is_array(d))
			return bad(err, errlen, name, "matrix: dimension \"%s\" is not an array",
				   k);
		planned *= json_array_size(d);
		if (planned > UINT32_MAX)
			planned = UINT32_MAX;
	}
	r->planned = json_object_size(dims) ? (unsigned int)planned : 0;
	return 0;
}

static int parse_cell(json_t *c, unsigned int i, struct cmp_result *r, const char *name, char *err,
		      size_t errlen)
{
	struct cmp_cell *cell = &r->cells[i];
	json_t *params, *values, *x;
	const char *k;
	size_t j;

	if (!json_is_object(c))
		return bad(err, errlen, name, "cell %u is not an object", i + 1);
	params = json_object_get(c, "params");
	if (!json_is_object(params))
		return bad(err, errlen, name, "cell %u: no \"params\" object", i + 1);
	values = json_object_get(c, "values");
	if (!json_is_array(values))
		return bad(err, errlen, name, "cell %u: no \"values\" array", i + 1);
	if (opt_str(c, "unit", &cell->unit, name, "cell: ", err, errlen))
		return -EINVAL;
	if (!cell->unit)
		cell->unit = r->unit;
	cell->params = calloc(json_object_size(params) + 1, sizeof(*cell->params));
	cell->values = calloc(json_array_size(values) + 1, sizeof(*cell->values));
	if (!cell->params || !cell->values)
		return -ENOMEM;
	json_object_foreach(params, k, x)
	{
		if (!json_is_string(x))
			return bad(err, errlen, name, "cell %u: params.%s is not a string", i + 1,
				   k);
		cell->params[cell->nparams].key = k;
		cell->params[cell->nparams++].val = json_string_value(x);
	}
	json_array_foreach(values, j, x)
	{
		if (!json_is_number(x))
			return bad(err, errlen, name,
				   "cell %u: \"values\" holds a %s, not a number", i + 1,
				   json_is_string(x) ? "string" : "non-number");
		cell->values[cell->n++] = json_number_value(x);
	}
	return 0;
}

/* Takes doc. */
static int cmp_parse(const char *name, json_t *doc, struct cmp_result *r, char *err, size_t errlen)
{
	json_t *cells, *v, *env;
	unsigned int i, j, cap = 0;
	char key[CMP_KEY_MAX];
	int ret;

	memset(r, 0, sizeof(*r));
	r->doc = doc;
	r->path = strdup(name);
	if (!r->path)
		return -ENOMEM;
	cells = json_is_object(doc) ? json_object_get(doc, "cells") : NULL;
	if (!json_is_array(cells))
		return bad(err, errlen, name, "not an ethtune matrix result (no \"cells\")");
	v = json_object_get(doc, "schema-version");
	if (!json_is_integer(v))
		return bad(err, errlen, name, "no \"schema-version\"");
	if (json_integer_value(v) != CMP_RESULT_VERSION)
		return bad(err, errlen, name, "schema-version %lld (this ethtune reads %d)",
			   (long long)json_integer_value(v), CMP_RESULT_VERSION);
	if (opt_str(doc, "host", &r->host, name, "", err, errlen))
		return -EINVAL;
	if (!r->host)
		return bad(err, errlen, name, "no \"host\"");
	v = json_object_get(doc, "complete");
	if (v && !json_is_boolean(v))
		return bad(err, errlen, name, "\"complete\" is not true or false");
	r->complete = !v || json_is_true(v);
	ret = parse_matrix(json_object_get(doc, "matrix"), r, name, err, errlen);
	if (ret)
		return ret;

	r->cells = calloc(json_array_size(cells) + 1, sizeof(*r->cells));
	if (!r->cells)
		return -ENOMEM;
	for (i = 0; i < json_array_size(cells); i++) {
		ret = parse_cell(json_array_get(cells, i), i, r, name, err, errlen);
		r->ncells = i + 1; /* freed with the rest, parsed or not */
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (cmp_params_equal(&r->cells[j], &r->cells[i])) {
				char ps[256];

				cmp_params_str(&r->cells[i], ps, sizeof(ps));
				return bad(err, errlen, name,
					   "cells %u and %u have the same params (%s)", j + 1,
					   i + 1, ps);
			}
	}

	env = json_object_get(doc, "environment");
	if (!env)
		return 0;
	if (!json_is_object(env))
		return bad(err, errlen, name, "\"environment\" is not an object");
	key[0] = '\0';
	ret = json_object_size(env) ? flatten(r, &cap, key, 0, env) : 0;
	if (ret == -E2BIG)
		return bad(err, errlen, name, "environment: a key longer than %d characters",
			   CMP_KEY_MAX - 1);
	return ret;
}

static int load_fail(int ret, struct cmp_result *r)
{
	cmp_result_free(r);
	return ret;
}

int cmp_load_text(const char *name, const char *text, struct cmp_result *r, char *err,
		  size_t errlen)
{
	json_error_t je;
	json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	int ret;

	memset(r, 0, sizeof(*r));
	if (!doc)
		return bad(err, errlen, name, "not JSON (line %d: %s)", je.line, je.text);
	ret = cmp_parse(name, doc, r, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
	return ret ? load_fail(ret, r) : 0;
}

static int load_file(const char *path, struct cmp_result *r, char *err, size_t errlen)
{
	json_error_t je;
	struct stat st;
	json_t *doc;
	FILE *f;
	int ret;

	memset(r, 0, sizeof(*r));
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		return bad(err, errlen, path, "not a regular file");
	}
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!doc)
		return bad(err, errlen, path, "not JSON (line %d: %s)", je.line, je.text);
	ret = cmp_parse(path, doc, r, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	return ret ? load_fail(ret, r) : 0;
}

static int json_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

static int load_dir(const char *path, struct cmp_side *s, char *err, size_t errlen)
{
	struct dirent **ents;
	size_t plen = strlen(path);
	int n, i, ret = 0;

	n = scandir(path, &ents, json_name, alphasort);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!n) {
		free(ents);
		return bad(err, errlen, path, "no result files (*.json)");
	}
	s->r = calloc(n, sizeof(*s->r));
	if (!s->r)
		ret = -ENOMEM;
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	for (i = 0; i < n && !ret; i++) {
		char file[4096];
		unsigned int j;

		snprintf(file, sizeof(file), "%.*s/%s", (int)plen, path, ents[i]->d_name);
		ret = load_file(file, &s->r[s->n], err, errlen);
		if (ret)
			break;
		s->n++;
		for (j = 0; j + 1 < s->n; j++)
			if (!strcmp(s->r[j].host, s->r[s->n - 1].host)) {
				ret = bad(err, errlen, path, "two results for host %s (%s, %s)",
					  s->r[j].host, s->r[j].path, s->r[s->n - 1].path);
				break;
			}
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	return ret;
}

int cmp_load(const char *path, struct cmp_side *s, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	if (!s->path) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (stat(path, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	} else if (S_ISDIR(st.st_mode)) {
		s->dir = true;
		ret = load_dir(path, s, err, errlen);
	} else {
		s->r = calloc(1, sizeof(*s->r));
		ret = s->r ? load_file(path, s->r, err, errlen) : -ENOMEM;
		if (!ret)
			s->n = 1;
	}
	if (ret)
		cmp_side_free(s);
	return ret;
}

void cmp_result_free(struct cmp_result *r)
{
	unsigned int i;

	for (i = 0; r->cells && i < r->ncells; i++) {
		free(r->cells[i].params);
		free(r->cells[i].values);
	}
	free(r->cells);
	for (i = 0; i < r->nenv; i++) {
		free(r->env[i].key);
		free(r->env[i].text);
	}
	free(r->env);
	free(r->path);
	if (r->doc)
		json_decref(r->doc);
	memset(r, 0, sizeof(*r));
}

void cmp_side_free(struct cmp_side *s)
{
	unsigned int i;

	for (i = 0; s->r && i < s->n; i++)
		cmp_result_free(&s->r[i]);
	free(s->r);
	free(s->path);
	memset(s, 0, sizeof(*s));
}
