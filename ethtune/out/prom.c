/* Prometheus text exposition (format 0.0.4) for node_exporter's textfile collector. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out/prom.h"
#include "util/ethtune.h"

#define PROM_NAME_MAX 128

struct prom_family {
	char name[PROM_NAME_MAX];
	enum prom_type type;
	char *help;
	char *buf; /* the samples' lines */
	size_t len, cap;
};

struct prom {
	struct prom_family *fam;
	unsigned int nfam;
	const char *common[2 * PROM_MAX_COMMON];
	char *common_store[2 * PROM_MAX_COMMON];
	unsigned int ncommon;
	int err; /* the first error: prom_write() returns it */
};

static const char *const type_names[] = {
	[PROM_GAUGE] = "gauge",
	[PROM_COUNTER] = "counter",
	[PROM_HISTOGRAM] = "histogram",
};

struct prom *prom_new(void)
{
	return calloc(1, sizeof(struct prom));
}

void prom_free(struct prom *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nfam; i++) {
		free(p->fam[i].help);
		free(p->fam[i].buf);
	}
	for (i = 0; i < 2 * p->ncommon; i++)
		free(p->common_store[i]);
	free(p->fam);
	free(p);
}

static int fail(struct prom *p, int err)
{
	if (!p->err)
		p->err = err;
	return err;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* for a metric (colon allowed), without the colon for a label; a
 * label name starting with "__" is reserved. */
static bool valid_name(const char *s, bool metric)
{
	const char *c;

	if (!s || !*s || strlen(s) >= PROM_NAME_MAX || (*s >= '0' && *s <= '9'))
		return false;
	if (!metric && s[0] == '_' && s[1] == '_')
		return false;
	for (c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || (metric && *c == ':')))
			return false;
	return true;
}

int prom_labels(struct prom *p, ...)
{
	const char *k, *v;
	va_list ap;
	int ret = 0;

	va_start(ap, p);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		if (!valid_name(k, false) || !v || p->ncommon >= PROM_MAX_COMMON) {
			ret = -EINVAL;
			break;
		}
		p->common_store[2 * p->ncommon] = strdup(k);
		p->common_store[2 * p->ncommon + 1] = strdup(v);
		p->ncommon++;
		if (!p->common_store[2 * p->ncommon - 2] || !p->common_store[2 * p->ncommon - 1]) {
			ret = -ENOMEM;
			break;
		}
		p->common[2 * p->ncommon - 2] = p->common_store[2 * p->ncommon - 2];
		p->common[2 * p->ncommon - 1] = p->common_store[2 * p->ncommon - 1];
	}
	va_end(ap);
	return ret ? fail(p, ret) : 0;
}

void prom_format_value(double v, char *buf, size_t len)
{
	int prec;

	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* integers as such (a count is exact to 2^53), others the shortest that reads back */
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

/* Append to a growing string; -ENOMEM. */
static int put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 256;
		char *b;

		while (*len + n + 1 > c)
			c *= 2;
		b = realloc(*buf, c);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* A label value escaped as the format asks: backslash, double quote and line feed. */
static int put_escaped(char **buf, size_t *len, size_t *cap, const char *s, bool quote)
{
	int ret = 0;

	for (; *s && !ret; s++) {
		if (*s == '\\')
			ret = put(buf, len, cap, "\\\\", 2);
		else if (*s == '\n')
			ret = put(buf, len, cap, "\\n", 2);
		else if (*s == '"' && quote)
			ret = put(buf, len, cap, "\\\"", 2);
		else
			ret = put(buf, len, cap, s, 1);
	}
	return ret;
}

static struct prom_family *family(struct prom *p, const char *name, enum prom_type type,
				  const char *help)
{
	struct prom_family *f;
	unsigned int i;

	for (i = 0; i < p->nfam; i++)
		if (!strcmp(p->fam[i].name, name)) {
			if (p->fam[i].type != type) {
				fail(p, -EINVAL);
				return NULL;
			}
			return &p->fam[i];
		}
	if (!valid_name(name, true) || !help) {
		fail(p, -EINVAL);
		return NULL;
	}
	f = realloc(p->fam, (p->nfam + 1) * sizeof(*f));
	if (!f) {
		fail(p, -ENOMEM);
		return NULL;
	}
	p->fam = f;
	f = &p->fam[p->nfam];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->type = type;
	f->help = strdup(help);
	if (!f->help) {
		fail(p, -ENOMEM);
		return NULL;
	}
	p->nfam++;
	return f;
}

/* "name{common...,own...[,le="x"]} value\n" into f; a series already there is an error. */
static int add_line(struct prom *p, struct prom_family *f, const char *suffix, const char *le,
		    double value, va_list ap)
{
	const char *names[2 * PROM_MAX_COMMON + 16];
	char *s = NULL, val[40];
	size_t len = 0, cap = 0;
	unsigned int n = 0, i, j;
	const char *k;
	int ret = 0;

	for (i = 0; i < 2 * p->ncommon; i++)
		names[n++] = p->common[i];
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);

		if (!valid_name(k, false) || !v || n + 2 > sizeof(names) / sizeof(names[0]))
			return fail(p, -EINVAL);
		names[n++] = k;
		names[n++] = v;
	}
	/* no label twice, and none named le in a histogram's series */
	for (i = 0; i < n; i += 2) {
		if (le && !strcmp(names[i], "le"))
			return fail(p, -EINVAL);
		for (j = i + 2; j < n; j += 2)
			if (!strcmp(names[i], names[j]))
				return fail(p, -EINVAL);
	}
	ret = put(&s, &len, &cap, "\n", 1);
	ret = ret ?: put(&s, &len, &cap, f->name, strlen(f->name));
	ret = ret ?: put(&s, &len, &cap, suffix, strlen(suffix));
	if (n || le)
		ret = ret ?: put(&s, &len, &cap, "{", 1);
	for (i = 0; i < n && !ret; i += 2) {
		ret = put(&s, &len, &cap, i ? "," : "", i ? 1 : 0);
		ret = ret ?: put(&s, &len, &cap, names[i], strlen(names[i]));
		ret = ret ?: put(&s, &len, &cap, "=\"", 2);
		ret = ret ?: put_escaped(&s, &len, &cap, names[i + 1], true);
		ret = ret ?: put(&s, &len, &cap, "\"", 1);
	}
	if (le && !ret) {
		ret = put(&s, &len, &cap, n ? ",le=\"" : "le=\"", n ? 5 : 4);
		ret = ret ?: put(&s, &len, &cap, le, strlen(le));
		ret = ret ?: put(&s, &len, &cap, "\"", 1);
	}
	if (n || le)
		ret = ret ?: put(&s, &len, &cap, "}", 1);
	ret = ret ?: put(&s, &len, &cap, " ", 1);
	if (ret) {
		free(s);
		return fail(p, ret);
	}
	/* the same series twice would make the collector refuse the whole file */
	if (f->buf && (!strncmp(f->buf, s + 1, len - 1) || strstr(f->buf, s))) {
		free(s);
		return fail(p, -EEXIST);
	}
	prom_format_value(value, val, sizeof(val));
	ret = put(&s, &len, &cap, val, strlen(val));
	ret = ret ?: put(&f->buf, &f->len, &f->cap, s + 1, len - 1);
	ret = ret ?: put(&f->buf, &f->len, &f->cap, "\n", 1);
	free(s);
	return ret ? fail(p, ret) : 0;
}

int prom_sample(struct prom *p, const char *name, enum prom_type type, const char *help,
		double value, ...)
{
	struct prom_family *f;
	va_list ap;
	int ret;

	if (type == PROM_HISTOGRAM)
		return fail(p, -EINVAL);
	if (isnan(value))
		return 0; /* a missing value: no sample */
	f = family(p, name, type, help);
	if (!f)
		return p->err;
	va_start(ap, value);
	ret = add_line(p, f, "", NULL, value, ap);
	va_end(ap);
	return ret;
}

int prom_histogram(struct prom *p, const char *name, const char *help, const double *le,
		   const uint64_t *cum, unsigned int n, uint64_t count, double sum, ...)
{
	struct prom_family *f;
	char b[40];
	unsigned int i;
	va_list ap;
	int ret = 0;

	for (i = 0; i < n; i++)
		if ((i && (le[i] <= le[i - 1] || cum[i] < cum[i - 1])) || cum[i] > count ||
		    !isfinite(le[i]))
			return fail(p, -EINVAL);
	f = family(p, name, PROM_HISTOGRAM, help);
	if (!f)
		return p->err;
	for (i = 0; i <= n && !ret; i++) {
		if (i < n)
			prom_format_value(le[i], b, sizeof(b));
		else
			snprintf(b, sizeof(b), "+Inf");
		va_start(ap, sum);
		ret = add_line(p, f, "_bucket", b, i < n ? (double)cum[i] : (double)count, ap);
		va_end(ap);
	}
	if (!ret) {
		va_start(ap, sum);
		ret = add_line(p, f, "_sum", NULL, sum, ap);
		va_end(ap);
	}
	if (!ret) {
		va_start(ap, sum);
		ret = add_line(p, f, "_count", NULL, (double)count, ap);
		va_end(ap);
	}
	return ret;
}

int prom_format(const struct prom *p, FILE *f)
{
	unsigned int i;
	char *h = NULL;
	size_t len, cap;

	if (p->err)
		return p->err;
	for (i = 0; i < p->nfam; i++) {
		const struct prom_family *fm = &p->fam[i];

		if (!fm->len)
			continue;
		len = cap = 0;
		free(h);
		h = NULL;
		if (put_escaped(&h, &len, &cap, fm->help, false)) {
			free(h);
			return -ENOMEM;
		}
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s", fm->name, h ? h : "", fm->name,
			type_names[fm->type], fm->buf);
	}
	free(h);
	return ferror(f) ? -EIO : 0;
}

static int fill(FILE *f, void *ctx)
{
	return prom_format(ctx, f);
}

int prom_write(const struct prom *p, const char *path)
{
	if (p->err)
		return p->err;
	return write_file_atomic(path, fill, (void *)p);
}

int prom_check_path(const char *path, char *why, size_t len)
{
	size_t n = strlen(path);
	const char *base = strrchr(path, '/');
	struct stat st;
	char *d;
	int ret = 0;

	base = base ? base + 1 : path;
	if (n < 5 || strcmp(path + n - 5, ".prom") || strlen(base) <= 5) {
		snprintf(why, len,
			 "--prom %s: the name must end in .prom (the textfile collector reads no "
			 "other)",
			 path);
		return -EINVAL;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(why, len, "--prom %s: not a regular file", path);
		return -EINVAL;
	}
	d = strdup(path);
	if (!d)
		return -ENOMEM;
	/* the file is replaced by a rename in its directory: that is what must be writable */
	if (access(dirname(d), W_OK | X_OK)) {
		ret = -errno;
		snprintf(why, len, "--prom %s: %s", path, strerror(errno));
	}
	free(d);
	return ret;
}

int prom_finish(struct prom *p, const char *path, const char *command)
{
	struct timespec ts;
	int ret;

	if (!p) {
		et_err("%s: cannot write %s: %s", command, path, strerror(ENOMEM));
		return -ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	prom_sample(p, "ethtune_last_run_timestamp_seconds", PROM_GAUGE,
		    "When the last run of an ethtune command that wrote these metrics ended, in "
		    "seconds since the epoch.",
		    ts.tv_sec + ts.tv_nsec * 1e-9, "command", command, NULL);
	ret = prom_write(p, path);
	if (ret)
		et_err("%s: cannot write %s: %s", command, path, strerror(-ret));
	prom_free(p);
	return ret;
}
