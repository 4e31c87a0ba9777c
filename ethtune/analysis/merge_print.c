/* profile merge's report (text or JSON, one path) and the profiles it writes, with provenance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/merge.h"
#include "analysis/thresholds.h"
#include "analysis/tune.h"
#include "knowledge/profile.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "out/json_print.h"
#include "util/ethtune.h"

static const char *const verdicts[] = {
	[MV_PROFILE] = "profile",
	[MV_FEW_HOSTS] = "too-few-hosts",
	[MV_NO_COMMON] = "no-common-setting",
};

static const char *split_name(int split)
{
	return split == MERGE_SPLIT_FIRMWARE ? "firmware"
	       : split == MERGE_SPLIT_KERNEL ? "kernel"
					     : NULL;
}

/* ---- distinct versions of a model's hosts, with how many hosts have each ---- */

struct count {
	const char *s;
	unsigned int n;
};

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* what: 0 firmware, 1 kernel, 2 ethtune version, 3 date. The distinct values in c (sorted);
 * their number. */
static unsigned int distinct(const struct merge_model *m, int what, struct count *c)
{
	const char **v = malloc((m->n + 1) * sizeof(*v));
	unsigned int i, k = 0, nc = 0;

	if (!v)
		return 0;
	for (i = 0; i < m->n; i++) {
		const struct merge_host *h = m->h[i];
		const char *s = what == 0   ? h->fw
				: what == 1 ? h->kernel
				: what == 2 ? h->version
					    : h->date;
		if (s)
			v[k++] = s;
	}
	qsort(v, k, sizeof(*v), by_str);
	for (i = 0; i < k; i++) {
		if (nc && !strcmp(c[nc - 1].s, v[i]))
			c[nc - 1].n++;
		else
			c[nc++] = (struct count){ v[i], 1 };
	}
	free(v);
	return nc;
}

/* The values as "a (3), b (1)" in text, [{key: a, "hosts": 3}] in JSON. */
static void print_counts(const char *arr, const char *key, const char *label, struct count *c,
			 unsigned int n)
{
	unsigned int i;

	print_text("%s", label);
	if (!n)
		print_text(" n/a");
	open_json_array(PRINT_JSON, arr);
	for (i = 0; i < n; i++) {
		open_json_object(NULL);
		if (i < 4) {
			print_string(PRINT_ANY, key, " %s", c[i].s);
			print_uint(PRINT_ANY, "hosts", " (%u)", c[i].n);
			print_text("%s", i + 1 < n ? "," : "");
		} else {
			print_string(PRINT_JSON, key, NULL, c[i].s);
			print_uint(PRINT_JSON, "hosts", NULL, c[i].n);
		}
		close_json_object();
	}
	if (n > 4)
		print_text(" and %u more", n - 4);
	close_json_array(PRINT_JSON, NULL);
}

static void print_provenance(const struct merge_model *m)
{
	struct count *c = calloc(m->n + 1, sizeof(*c));
	unsigned int n;

	if (!c)
		return;
	n = distinct(m, 0, c);
	print_counts("firmware-versions", "firmware-version", "  firmware", c, n);
	n = distinct(m, 1, c);
	print_counts("kernels", "kernel", "\n  kernel", c, n);
	n = distinct(m, 2, c);
	print_counts("ethtune-versions", "ethtune-version", "\n  ethtune", c, n);
	n = distinct(m, 3, c);
	if (n) {
		print_string(PRINT_ANY, "first-date", "\n  measured %s", c[0].s);
		print_string(PRINT_ANY, "last-date", " to %s\n", c[n - 1].s);
	} else {
		print_text("\n  measured n/a\n");
	}
	free(c);
}

static void print_num(enum output_type t, const char *key, const char *fmt, double v)
{
	if (isfinite(v))
		print_float(t, key, fmt, v);
	else if (t & PRINT_FP)
		print_na(key, " %s Mbit/s");
}

static bool by_irq(int obj)
{
	return !strcmp(tune_objective_name(obj), "throughput") ||
	       !strcmp(tune_objective_name(obj), "balanced");
}

/* One host's evidence: its pick, what it accepts, its throughput at the model's setting and the
 * outlier test there. Text only with -v, and for the outliers. */
static void print_host(const struct merge_host *h, bool text)
{
	enum output_type t = text ? PRINT_ANY : PRINT_JSON;
	unsigned int i;

	open_json_object(NULL);
	print_string(t, "host", h->outlier ? "  outlier %s" : "  host %s", h->host);
	print_string(t, "device", " (%s", h->dev);
	print_string(t, "file", ", %s)", h->path);
	if (h->date)
		print_string(PRINT_JSON, "date", NULL, h->date);
	if (h->version)
		print_string(PRINT_JSON, "ethtune-version", NULL, h->version);
	if (h->kernel)
		print_string(PRINT_JSON, "kernel", NULL, h->kernel);
	if (h->fw)
		print_string(PRINT_JSON, "firmware-version", NULL, h->fw);
	if (h->pick >= 0)
		print_uint(t, "pick", ": picks %u", h->value[h->pick]);
	else if (text)
		print_na("pick", ": picks %s");
	print_bool(PRINT_JSON, "fallback", NULL, h->fallback);
	if (text && h->fallback)
		print_text(" (tune's fallback)");
	if (text)
		print_text(", accepts");
	open_json_array(PRINT_JSON, "accepts");
	for (i = 0; i < h->n; i++)
		if (h->accept >> i & 1)
			print_uint(t, NULL, " %u", h->value[i]);
	close_json_array(PRINT_JSON, NULL);
	if (!h->accept && text)
		print_text(" none");
	if (h->at >= 0) {
		if (text)
			print_text(";");
		print_num(t, "mbps", " %.0f Mbit/s", h->p[h->at].mbps);
		if (text)
			print_text(" at %s %u", h->param, h->value[h->at]);
		if (isfinite(h->share))
			print_float(t, "share", ", %.2f of the others' mean", h->share);
		if (isfinite(h->pval))
			print_float(t, "p", " (p %.2g", h->pval);
		if (isfinite(h->p_adj))
			print_float(t, "p-adjusted", ", Holm %.2g)", h->p_adj);
	}
	print_bool(PRINT_JSON, "outlier", NULL, h->outlier);
	if (text && h->outlier)
		print_text(": left out");
	if (text)
		print_text("\n");
	close_json_object();
}

/* ---- the profile ---- */

static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '#' || *s == '\n' || *s == '\r')
			*s = '_';
}

/* Firmware as an fnmatch pattern that matches only itself. */
static void fnm_escape(const char *s, char *out, size_t len)
{
	size_t k = 0;

	for (; *s && k + 2 < len; s++) {
		if (strchr("*?[]\\", *s))
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = '\0';
}

static int add(struct profile *p, int sect, const char *key, const char *val, char *err, size_t len)
{
	char v[192];

	snprintf(v, sizeof(v), "%s", val);
	clean(v);
	return profile_add(p, sect, key, v, err, len);
}

/* The hosts' evidence as comment lines after the sections. */
static char *notes(const struct merge_model *m)
{
	size_t cap = 256 + (size_t)m->n * 512, k = 0;
	char *buf = malloc(cap);
	unsigned int i, j;

	if (!buf)
		return NULL;
	k += snprintf(
		buf + k, cap - k,
		"# Evidence, one line a host: its own pick by tune's rule, the settings the\n"
		"# rule accepts on it, its one-flow Mbit/s at %s %u, the outlier test there.\n",
		m->h[0]->param, m->value);
	for (i = 0; i < m->n; i++) {
		const struct merge_host *h = m->h[i];
		char line[512];
		int w;

		w = snprintf(line, sizeof(line), "# %s %s %s (%s): picks ",
			     h->outlier ? "outlier" : "host", h->host, h->dev,
			     h->date ? h->date : "undated");
		if (h->pick >= 0)
			w += snprintf(line + w, sizeof(line) - w, "%u", h->value[h->pick]);
		else
			w += snprintf(line + w, sizeof(line) - w, "n/a");
		w += snprintf(line + w, sizeof(line) - w, ", accepts");
		for (j = 0; j < h->n && w < 300; j++)
			if (h->accept >> j & 1)
				w += snprintf(line + w, sizeof(line) - w, " %u", h->value[j]);
		if (h->at >= 0 && w < 400)
			w += snprintf(line + w, sizeof(line) - w, "; %.0f Mbit/s",
				      h->p[h->at].mbps);
		if (isfinite(h->p_adj) && w < 400)
			w += snprintf(line + w, sizeof(line) - w,
				      ", %.2f of the others, Holm p %.2g", h->share, h->p_adj);
		if (w < 440)
			snprintf(line + w, sizeof(line) - w, "; ethtune %s, kernel %s, firmware %s",
				 h->version ? h->version : "n/a", h->kernel ? h->kernel : "n/a",
				 h->fw ? h->fw : "n/a");
		line[440] = '\0';
		for (j = 2; line[j]; j++)
			if (line[j] == '\n' || line[j] == '\r')
				line[j] = '_';
		k += snprintf(buf + k, cap - k, "%s\n", line);
	}
	return buf;
}

/* Join the distinct values (firmware 0, kernel 1) into buf, "a, b, c" (cut at len). */
static void join(const struct merge_model *m, int what, char *buf, size_t len)
{
	struct count *c = calloc(m->n + 1, sizeof(*c));
	unsigned int n, i;
	size_t k = 0;

	buf[0] = '\0';
	if (!c)
		return;
	n = distinct(m, what, c);
	for (i = 0; i < n && k + 4 < len; i++)
		k += snprintf(buf + k, len - k, "%s%s", i ? ", " : "", c[i].s);
	if (k >= len - 4)
		snprintf(buf + len - 5, 5, "...");
	free(c);
}

static int write_profile(const struct merge_opts *o, struct merge_model *m, char *err, size_t len)
{
	const struct merge_host *h = m->h[0];
	struct profile *pr = malloc(sizeof(*pr));
	bool napi = napi_param(h->param) && !obj_param(&et_coalesce, h->param);
	char buf[192], buf2[120], fx[96], *k, *save, *nt = NULL;
	struct count *c = calloc(m->n + 1, sizeof(*c));
	unsigned int i, nd = 0, nout = 0;
	int ret;

	if (!pr || !c) {
		free(pr);
		free(c);
		return -ENOMEM;
	}
	nd = distinct(m, 3, c);
	profile_init(pr, m->name);
	snprintf(pr->comment, sizeof(pr->comment),
		 "%s: merged by ethtune profile merge from %u hosts' tune results", m->name,
		 m->n - m->noutliers);
	snprintf(buf, sizeof(buf), "%s%s, objective %s: %s %u, accepted by all %u hosts", h->driver,
		 h->pci ? " (pci ids below)" : "", tune_objective_name(h->objective), h->param,
		 m->value, m->n - m->noutliers);
	ret = add(pr, PS_PROFILE, "description", buf, err, len);
	if (!ret)
		ret = add(pr, PS_MATCH, "driver", h->driver, err, len);
	if (!ret && h->pci) {
		snprintf(buf, sizeof(buf), "%04x:%04x", h->vendor, h->device);
		ret = add(pr, PS_MATCH, "pci", buf, err, len);
		snprintf(buf, sizeof(buf), "%04x:%04x", h->sub_vendor, h->sub_device);
		if (!ret)
			ret = add(pr, PS_MATCH, "subsystem", buf, err, len);
	}
	if (!ret && o->split == MERGE_SPLIT_FIRMWARE && h->fw && !strchr(h->fw, '#')) {
		fnm_escape(h->fw, buf, sizeof(buf));
		ret = add(pr, PS_MATCH, "firmware", buf, err, len);
	}
	if (!ret && o->split == MERGE_SPLIT_KERNEL && h->kernel &&
	    strspn(h->kernel, "0123456789.")) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strspn(h->kernel, "0123456789."),
			 h->kernel);
		ret = add(pr, PS_MATCH, "kernel", buf, err, len);
	}
	if (!ret && h->fixed) { /* the settings held fixed are part of the setting measured */
		snprintf(fx, sizeof(fx), "%s", h->fixed);
		for (k = strtok_r(fx, " ", &save); k && !ret; k = strtok_r(NULL, " ", &save)) {
			char *v = strtok_r(NULL, " ", &save);

			if (v)
				ret = add(pr, napi ? PS_NAPI : PS_COALESCE, k, v, err, len);
		}
	}
	snprintf(buf, sizeof(buf), "%u", m->value);
	if (!ret)
		ret = add(pr, napi ? PS_NAPI : PS_COALESCE, h->param, buf, err, len);
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "kind", "measured", err, len);
	snprintf(buf, sizeof(buf), "%u hosts, each listed below", m->n - m->noutliers);
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "host", buf, err, len);
	if (nd)
		snprintf(buf, sizeof(buf), "%s to %s", c[0].s, c[nd - 1].s);
	else
		snprintf(buf, sizeof(buf), "n/a (undated results)");
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "date", buf, err, len);
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "objective", tune_objective_name(h->objective), err,
			  len);
	join(m, 2, buf2, sizeof(buf2));
	snprintf(buf, sizeof(buf), "ethtune %s profile merge, of results by ethtune %s",
		 ETHTUNE_VERSION, buf2[0] ? buf2 : "n/a");
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "tool", buf, err, len);
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "rule", tune_rule(h->objective), err, len);
	join(m, 1, buf, 180);
	if (!ret && buf[0])
		ret = add(pr, PS_PROVENANCE, "kernel", buf, err, len);
	for (i = 0; i < m->n; i++)
		nout += m->h[i]->outlier;
	join(m, 0, buf2, 100);
	snprintf(buf, sizeof(buf),
		 "every host accepts it by tune's rule; firmware %s; %u outlier(s) left out",
		 buf2[0] ? buf2 : "n/a", nout);
	if (!ret)
		ret = add(pr, PS_PROVENANCE, "note", buf, err, len);
	if (!ret) {
		nt = notes(m);
		ret = nt ? 0 : -ENOMEM;
	}
	snprintf(m->profile, sizeof(m->profile), "%s/%s.profile", o->out, m->name);
	if (!ret)
		ret = profile_save_notes(pr, m->profile, nt, err, len);
	if (ret)
		m->profile[0] = '\0';
	free(nt);
	free(pr);
	free(c);
	return ret;
}

/* ---- the report ---- */

static void print_model(const struct merge_opts *o, struct merge_run *r, struct merge_model *m,
			int *wret)
{
	const struct merge_host *h = m->h[0];
	char err[600];
	unsigned int i, j, shown;

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "\nmodel %s:", m->name);
	print_string(PRINT_ANY, "driver", " driver %s", h->driver);
	if (h->pci) {
		char id[8];

		snprintf(id, sizeof(id), "%04x", h->vendor);
		print_string(PRINT_ANY, "vendor-id", ", pci %s", id);
		snprintf(id, sizeof(id), "%04x", h->device);
		print_string(PRINT_ANY, "device-id", ":%s", id);
		snprintf(id, sizeof(id), "%04x", h->sub_vendor);
		print_string(PRINT_ANY, "subsystem-vendor-id", " subsystem %s", id);
		snprintf(id, sizeof(id), "%04x", h->sub_device);
		print_string(PRINT_ANY, "subsystem-device-id", ":%s", id);
	} else {
		print_text(", pci n/a");
	}
	if (o->split == MERGE_SPLIT_FIRMWARE)
		print_string(PRINT_ANY, "split-firmware-version", ", firmware %s",
			     h->fw ? h->fw : "n/a");
	if (o->split == MERGE_SPLIT_KERNEL) {
		char kv[64];
		size_t n = h->kernel ? strspn(h->kernel, "0123456789.") : 0;

		snprintf(kv, sizeof(kv), "%.*s", (int)(n < 63 ? n : 63),
			 h->kernel ? h->kernel : "");
		print_string(PRINT_ANY, "split-kernel", ", kernel %s", kv);
	}
	print_string(PRINT_ANY, "objective", ", objective %s", tune_objective_name(h->objective));
	print_string(PRINT_ANY, "param", ", %s", h->param);
	if (h->fixed)
		print_string(PRINT_ANY, "fixed", " (with %s)", h->fixed);
	print_uint(PRINT_ANY, "hosts", ": %u hosts", m->n);
	print_uint(PRINT_ANY, "outliers", ", %u outlier(s)\n", m->noutliers);
	print_provenance(m);
	print_string(PRINT_JSON, "verdict", NULL, verdicts[m->verdict]);
	switch (m->verdict) {
	case MV_FEW_HOSTS:
		snprintf(err, sizeof(err), "%u host(s)%s, fewer than --min-hosts %u: no profile",
			 m->n - m->noutliers, m->noutliers ? " besides the outliers" : "",
			 o->min_hosts);
		print_string(PRINT_ANY, "reason", "  %s\n", err);
		break;
	case MV_PROFILE:
		print_text("  setting: %s", h->param);
		print_uint(PRINT_ANY, "value", " %u", m->value);
		print_uint(PRINT_ANY, "accepted-by", ", accepted by all %u hosts",
			   m->n - m->noutliers);
		print_string(PRINT_ANY, "chosen-by", " (chosen by %s",
			     m->cost_irq	    ? "the fewest interrupts"
			     : by_irq(h->objective) ? "the largest delay"
			     : !strcmp(tune_objective_name(h->objective), "latency")
				     ? "the smallest delay"
				     : "the least CPU per Gbit/s");
		if (m->cost_irq)
			print_float(PRINT_ANY, "irq-per-s", ", %.0f irq/s on average", m->cost);
		print_text(")");
		print_float(PRINT_ANY, "mbps", "; %.0f Mbit/s one flow on average\n", m->mean_mbps);
		break;
	case MV_NO_COMMON:
		print_string(PRINT_ANY, "reason", "  %s\n",
			     "no setting is accepted by every host; each host's own pick:");
		open_json_array(PRINT_JSON, "wants");
		for (i = 0; i < m->nwant; i++) {
			open_json_object(NULL);
			if (m->want[i].none)
				print_na("value", "    n/a");
			else
				print_uint(PRINT_ANY, "value", "    %u", m->want[i].value);
			print_uint(PRINT_ANY, "hosts", ": %u host(s):", m->want[i].n);
			open_json_array(PRINT_JSON, "host-names");
			for (j = 0, shown = 0; j < m->n; j++) {
				const struct merge_host *x = m->h[j];
				bool none = x->pick < 0;

				if (x->outlier || none != m->want[i].none ||
				    (!none && x->value[x->pick] != m->want[i].value))
					continue;
				print_string(shown < 8 ? PRINT_ANY : PRINT_JSON, NULL, " %s",
					     x->host);
				shown++;
			}
			close_json_array(PRINT_JSON, NULL);
			print_text("%s\n", shown > 8 ? " ..." : "");
			close_json_object();
		}
		close_json_array(PRINT_JSON, NULL);
		if (m->explained_by) {
			print_string(PRINT_ANY, "explained-by",
				     "  %s explains the split:", m->explained_by);
			open_json_array(PRINT_JSON, "parts");
			for (i = 0; i < m->npart; i++) {
				open_json_object(NULL);
				print_text("%s", i ? "," : "");
				print_string(PRINT_ANY, "version", " %s", m->part[i].what);
				print_uint(PRINT_ANY, "value", " -> %u", m->part[i].value);
				print_uint(PRINT_ANY, "hosts", " (%u hosts)", m->part[i].n);
				close_json_object();
			}
			close_json_array(PRINT_JSON, NULL);
			print_text("; --split-by %s writes a profile for each\n", m->explained_by);
		}
		break;
	}
	open_json_array(PRINT_JSON, "results");
	for (i = 0; i < m->n; i++)
		print_host(m->h[i], et_opts.verbose || m->h[i]->outlier);
	close_json_array(PRINT_JSON, NULL);
	if (m->verdict == MV_PROFILE && o->out && !r->write_held) {
		int ret = write_profile(o, m, err, sizeof(err));

		if (ret) {
			et_err("profile merge: cannot write the profile of %s: %s", m->name,
			       ret == -ENOMEM ? strerror(ENOMEM) : err);
			*wret = -EIO;
		} else {
			r->written++;
			print_string(PRINT_ANY, "profile", "  profile written: %s\n", m->profile);
		}
	}
	close_json_object();
}

int merge_print(const struct merge_opts *o, struct merge_run *r)
{
	unsigned int i, nprof = 0;
	int wret = 0;

	if (o->out && !r->write_held && mkdir(o->out, 0755) && errno != EEXIST) {
		et_err("profile merge: cannot create %s: %s", o->out, strerror(errno));
		return -EIO;
	}
	new_json_obj(et_opts.json);
	print_uint(PRINT_ANY, "files", "profile merge: %u file(s)", r->nfiles);
	print_uint(PRINT_ANY, "tune-results", ", %u tune result(s)", r->nh);
	print_uint(PRINT_ANY, "skipped-count", ", %u skipped", r->nskip);
	print_uint(PRINT_ANY, "older-count", ", %u older result(s) of a host left out", r->ndup);
	print_uint(PRINT_ANY, "model-count", ", %u model(s)\n", r->nm);
	print_float(PRINT_ANY, "alpha",
		    "outlier test: a host's one-flow Mbit/s against the "
		    "others' (leave-one-out t), Holm at %g",
		    o->alpha);
	print_float(PRINT_ANY, "min-effect-pct", ", at least %.0f%% below", 100 * MERGE_MIN_EFFECT);
	print_uint(PRINT_ANY, "min-hosts", "; --min-hosts %u", o->min_hosts);
	if (split_name(o->split))
		print_string(PRINT_ANY, "split-by", "; split by %s", split_name(o->split));
	print_text("\n");
	open_json_array(PRINT_JSON, "skipped");
	for (i = 0; i < r->nskip; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "file", "skipped %s", r->skip[i].path);
		print_string(PRINT_ANY, "reason", ": %s\n", r->skip[i].why);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "older");
	for (i = 0; i < r->ndup; i++) {
		const struct merge_dup *d = &r->dup[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "host", "host %s", d->used->host);
		print_string(PRINT_ANY, "device", " device %s: two results, ", d->used->dev);
		print_string(PRINT_ANY, "used", "using %s", d->used->path);
		print_string(PRINT_ANY, "left-out", ", not %s", d->dropped->path);
		print_string(PRINT_ANY, "newer-by", " (newer by its %s)\n",
			     d->used->dated && d->dropped->dated &&
					     d->used->when != d->dropped->when
				     ? "date"
			     : d->used->when != d->dropped->when ? "file's modification time"
								 : "file name, same time");
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "models");
	for (i = 0; i < r->nm; i++) {
		print_model(o, r, &r->m[i], &wret);
		nprof += r->m[i].verdict == MV_PROFILE;
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "profiles", "\n%u model(s) with a profile", nprof);
	print_uint(PRINT_ANY, "written", ", %u written", r->written);
	if (!o->out)
		print_text(" (--out DIR writes them)");
	if (r->write_held && o->out)
		print_string(PRINT_ANY, "held", " (%s)", "not written: inputs were skipped");
	print_text("\n");
	delete_json_obj();
	if (r->nskip && !o->allow_partial)
		et_err("profile merge: %u file(s) skipped%s; --allow-partial to use the rest",
		       r->nskip, o->out ? ", no profile written" : "");
	return wret;
}
