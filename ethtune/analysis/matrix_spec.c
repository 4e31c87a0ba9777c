/* The matrix file: its JSON read into dimensions and fixed settings, and the cells it declares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "analysis/matrix.h"
#include "probe/probe.h"
#include "util/ethtune.h"

/* A JSON scalar as the word a probe option or setting takes. */
static int word(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
	else
		return -EINVAL;
	return buf[0] && strlen(buf) < len - 1 ? 0 : -EINVAL;
}

static const char *const set_objs[] = { "coalesce", "ring", "channels", "feature", "priv-flag",
					"link",	    "napi", "bql",	"sysctl",  NULL };

/* "coalesce.tx-usecs" into a setting; 1 when key is not OBJECT.KEY of a known object. */
static int as_set(const char *key, const char *val, struct mx_set *s)
{
	const char *dot = strchr(key, '.');
	unsigned int i;

	if (!dot)
		return 1;
	for (i = 0; set_objs[i]; i++)
		if (strlen(set_objs[i]) == (size_t)(dot - key) &&
		    !strncmp(key, set_objs[i], dot - key))
			break;
	if (!set_objs[i] || !dot[1] || strlen(dot + 1) >= sizeof(s->key))
		return 1;
	snprintf(s->obj, sizeof(s->obj), "%s", set_objs[i]);
	snprintf(s->key, sizeof(s->key), "%s", dot + 1);
	snprintf(s->val, sizeof(s->val), "%s", val);
	return 0;
}

static int num(json_t *doc, const char *path, const char *key, double lo, double hi, double *out,
	       char *err, size_t errlen)
{
	json_t *v = json_object_get(doc, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < lo || json_number_value(v) > hi) {
		snprintf(err, errlen, "%s: \"%s\" needs a number from %g to %g", path, key, lo, hi);
		return -EINVAL;
	}
	*out = json_number_value(v);
	return 0;
}

int mx_load(const char *path, struct mx_run *m, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"name",		  "description", "peer",     "dev",
		"test",		  "duration-s",	 "warmup-s", "iterations-min",
		"iterations-max", "width-pct",	 "budget-s", "fixed",
		"dimensions",	  NULL
	};
	json_error_t je;
	json_t *doc, *v, *dims, *fixed;
	const char *k, *s;
	double imin = 3, imax = 10;
	unsigned int i;
	size_t j;
	int ret = -EINVAL;
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!doc) {
		snprintf(err, errlen, "%s: not JSON: %s (line %d)", path, je.text, je.line);
		return -EINVAL;
	}
	if (!json_is_object(doc)) {
		snprintf(err, errlen, "%s: not a JSON object", path);
		goto out;
	}
	json_object_foreach(doc, k, v)
	{
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i]) {
			snprintf(err, errlen, "%s: unknown key \"%s\"", path, k);
			goto out;
		}
	}
	s = json_string_value(json_object_get(doc, "name"));
	if (!s || !*s || strlen(s) >= sizeof(m->name) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != strlen(s)) {
		snprintf(err, errlen, "%s: \"name\" needs a word of letters, digits, . _ -", path);
		goto out;
	}
	snprintf(m->name, sizeof(m->name), "%s", s);
	snprintf(m->file, sizeof(m->file), "%s", path);
	snprintf(m->description, sizeof(m->description), "%s",
		 json_string_value(json_object_get(doc, "description")) ?: "");
	snprintf(m->peer, sizeof(m->peer), "%s",
		 json_string_value(json_object_get(doc, "peer")) ?: "");
	snprintf(m->devname, sizeof(m->devname), "%s",
		 json_string_value(json_object_get(doc, "dev")) ?: "");
	m->dev = m->devname[0] ? m->devname : NULL;
	snprintf(m->test, sizeof(m->test), "%s",
		 json_string_value(json_object_get(doc, "test")) ?: "stream");
	m->duration_s = 2;
	m->warmup_s = 1;
	m->width_pct = 5;
	if (num(doc, path, "duration-s", 0.1, 3600, &m->duration_s, err, errlen) ||
	    num(doc, path, "warmup-s", 0, 600, &m->warmup_s, err, errlen) ||
	    num(doc, path, "iterations-min", 1, MX_MAX_VALUES, &imin, err, errlen) ||
	    num(doc, path, "iterations-max", 1, MX_MAX_VALUES, &imax, err, errlen) ||
	    num(doc, path, "width-pct", 0.1, 100, &m->width_pct, err, errlen) ||
	    num(doc, path, "budget-s", 0, 86400, &m->budget_s, err, errlen))
		goto out;
	m->iter_min = (unsigned int)imin;
	m->iter_max = (unsigned int)imax;
	if (m->iter_min > m->iter_max) {
		snprintf(err, errlen, "%s: iterations-min %u is above iterations-max %u", path,
			 m->iter_min, m->iter_max);
		goto out;
	}
	fixed = json_object_get(doc, "fixed");
	if (fixed && !json_is_object(fixed)) {
		snprintf(err, errlen, "%s: \"fixed\" needs an object of option: value", path);
		goto out;
	}
	json_object_foreach(fixed, k, v)
	{
		char w[MX_WORD];

		if (word(v, w, sizeof(w))) {
			snprintf(err, errlen, "%s: fixed \"%s\" needs a string, number or boolean",
				 path, k);
			goto out;
		}
		if (m->nfixed + m->nfixed_probe >= MX_MAX_SETS) {
			snprintf(err, errlen, "%s: more than %d fixed values", path, MX_MAX_SETS);
			goto out;
		}
		if (!as_set(k, w, &m->fixed[m->nfixed])) {
			m->nfixed++;
		} else {
			snprintf(m->fixed_probe[m->nfixed_probe][0], MX_WORD, "%s", k);
			snprintf(m->fixed_probe[m->nfixed_probe][1], MX_WORD, "%s", w);
			m->nfixed_probe++;
		}
	}
	dims = json_object_get(doc, "dimensions");
	if (!json_is_object(dims) || !json_object_size(dims)) {
		snprintf(err, errlen, "%s: \"dimensions\" needs an object of option: [values]",
			 path);
		goto out;
	}
	json_object_foreach(dims, k, v)
	{
		json_t *x;

		if (m->ndims >= MX_MAX_DIMS || strlen(k) >= MX_WORD) {
			snprintf(err, errlen, "%s: more than %d dimensions", path, MX_MAX_DIMS);
			goto out;
		}
		if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > MX_MAX_VALS) {
			snprintf(err, errlen, "%s: dimension \"%s\" needs 1 to %d values", path, k,
				 MX_MAX_VALS);
			goto out;
		}
		snprintf(m->dim[m->ndims], MX_WORD, "%s", k);
		json_array_foreach(v, j, x)
		{
			if (word(x, m->dimval[m->ndims][j], MX_WORD)) {
				snprintf(
					err, errlen,
					"%s: dimension \"%s\": value %zu needs a string, number or "
					"boolean",
					path, k, j + 1);
				goto out;
			}
		}
		m->ndimval[m->ndims++] = json_array_size(v);
	}
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

/* The probe configuration of one cell; 0 or -EINVAL with a line naming what is wrong. */
static int cell_cfg(struct mx_run *m, struct mx_cell *c, mx_probe_opt_fn opt, char *err,
		    size_t errlen)
{
	struct probe_cfg *cfg = &c->cfg;
	char e[256];
	unsigned int i;

	probe_cfg_init(cfg);
	if (opt(cfg, "peer", m->peer, e, sizeof(e)) || opt(cfg, "test", m->test, e, sizeof(e)))
		goto bad;
	cfg->duration_s = m->duration_s;
	cfg->warmup_s = m->warmup_s;
	for (i = 0; i < m->nfixed_probe; i++)
		if (opt(cfg, m->fixed_probe[i][0], m->fixed_probe[i][1], e, sizeof(e)))
			goto bad;
	for (i = 0; i < m->nfixed; i++)
		c->set[c->nset++] = m->fixed[i];
	for (i = 0; i < c->nparam; i++) {
		if (!as_set(c->key[i], c->val[i], &c->set[c->nset])) {
			if (++c->nset >= MX_MAX_SETS) {
				snprintf(e, sizeof(e), "more than %d settings", MX_MAX_SETS);
				goto bad;
			}
		} else if (opt(cfg, c->key[i], c->val[i], e, sizeof(e))) {
			goto bad;
		}
	}
	cfg->iter_min = cfg->iter_max = 1;
	cfg->conf_level = 0;
	cfg->key_file = et_opts.key_file;
	cfg->msg_size = probe_msg_size(cfg);
	if (probe_cfg_check(cfg, e, sizeof(e)))
		goto bad;
	return 0;
bad:
	mx_cell_name(c, err, errlen);
	snprintf(err + strlen(err), errlen - strlen(err), "%s%s", c->nparam ? ": " : "", e);
	return -EINVAL;
}

int mx_cells(struct mx_run *m, mx_probe_opt_fn opt, char *err, size_t errlen)
{
	unsigned int idx[MX_MAX_DIMS] = { 0 }, n = 1, i, d;

	for (d = 0; d < m->ndims; d++) {
		n *= m->ndimval[d];
		if (n > MX_MAX_CELLS) {
			snprintf(err, errlen, "%s: more than %d cells", m->file, MX_MAX_CELLS);
			return -EINVAL;
		}
	}
	m->cell = calloc(n, sizeof(*m->cell));
	if (!m->cell)
		return -ENOMEM;
	m->ncells = n;
	for (i = 0; i < n; i++) {
		struct mx_cell *c = &m->cell[i];
		unsigned int r = i;
		int ret;

		/* the last dimension varies fastest */
		for (d = m->ndims; d-- > 0;) {
			idx[d] = r % m->ndimval[d];
			r /= m->ndimval[d];
		}
		c->nparam = m->ndims;
		for (d = 0; d < m->ndims; d++) {
			snprintf(c->key[d], MX_WORD, "%s", m->dim[d]);
			snprintf(c->val[d], MX_WORD, "%s", m->dimval[d][idx[d]]);
		}
		ret = cell_cfg(m, c, opt, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
