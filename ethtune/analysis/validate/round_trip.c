/* validate round-trip: each coalesce, ring and channel parameter set, read back, put back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "util/ethtune.h"

static struct val_res *rt_res; /* where devset's read-back warnings go */

static void rt_warn(const char *msg)
{
	if (rt_res)
		val_diag(rt_res, "%s", msg);
}

unsigned int val_rt_values(const struct et_param *p, uint64_t cur, bool has_max, uint64_t max,
			   uint64_t *v)
{
	uint64_t cand[4], lo = p->min ? p->min : 1;
	unsigned int n = 0, k = 0, i;

	switch (p->type) {
	case ET_BOOL:
		v[0] = !cur;
		v[1] = cur;
		return 2;
	case ET_ENUM:
		for (i = 1; p->enum_names && p->enum_names[i] && n < 2; i++)
			if (i != cur)
				v[n++] = i;
		if (n == 1)
			v[n++] = cur;
		return n;
	}
	if (has_max) {
		if (max < lo)
			return 0;
		cand[k++] = max;
		cand[k++] = lo + (max - lo) / 2;
		cand[k++] = lo;
	} else {
		cand[k++] = cur ? cur * 2 : 16;
		cand[k++] = cur ? cur / 2 : 64;
		if (p->type == ET_U8)
			for (i = 0; i < k; i++)
				cand[i] = cand[i] > 255 ? 255 : cand[i];
	}
	for (i = 0; i < k && n < 1; i++)
		if (cand[i] != cur)
			v[n++] = cand[i];
	if (!n)
		return 0;
	for (i = 0; i < k && n < 2; i++)
		if (cand[i] != v[0])
			v[n++] = cand[i];
	if (n < 2)
		v[n++] = cur;
	return n;
}

/* Set one parameter to its values, read each back, put it back; counts into the result. */
static int rt_param(struct val_ctx *c, struct val_res *r, unsigned int oi, const struct et_param *p,
		    const struct et_vals *cur, unsigned int *nset, unsigned int *nround,
		    unsigned int *nref, unsigned int *nbad)
{
	const struct et_object *obj = val_objs[oi];
	uint64_t v[2], max = p->max_attr ? cur->v[p->max_attr] : 0;
	char sv[32], got_s[32], cur_s[32], err[512];
	struct et_vals now;
	struct nl_sock ns;
	unsigned int n, i;
	char trail[160] = "";
	size_t tl = 0;
	int mark, ret;

	n = val_rt_values(p, cur->v[p->attr], p->max_attr && vals_has(cur, p->max_attr), max, v);
	obj_format_val(p, cur->v[p->attr], cur_s, sizeof(cur_s));
	if (!n) {
		val_diag(r, "%s %s: one value only (%s, max %llu), nothing to round-trip",
			 val_obj_words[oi], p->key, cur_s, (unsigned long long)max);
		return 0;
	}
	ret = journal_txn_begin(&mark);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct devset_kv kv = { p->key, sv };

		obj_format_val(p, v[i], sv, sizeof(sv));
		rt_res = r;
		ret = devset_set(c->o.dev, val_obj_words[oi], &kv, 1, DEVSET_JOURNAL, err,
				 sizeof(err), rt_warn);
		rt_res = NULL;
		if (ret && !strncmp(err, "cannot write the journal", 24)) {
			/* nothing may change that restore could not put back */
			snprintf(c->fatal, sizeof(c->fatal), "%s", err);
			undo_txn_rollback(mark);
			return ret;
		}
		if (ret == -EINTR || ret == -ENODEV) {
			val_diag(r, "%s %s -> %s: %s", val_obj_words[oi], p->key, sv, err);
			(*nbad)++;
			break;
		}
		if (ret) { /* the kernel's or the device's refusal: reported, not a failure */
			val_diag(r, "%s %s -> %s: refused: %s", val_obj_words[oi], p->key, sv, err);
			(*nref)++;
			continue;
		}
		(*nset)++;
		if (nl_open_genl(&ns, "ethtool"))
			continue;
		ret = obj_get(&ns, obj, c->o.dev, &now);
		nl_close(&ns);
		if (ret)
			continue;
		obj_format_val(p, now.v[p->attr], got_s, sizeof(got_s));
		tl += snprintf(trail + tl, sizeof(trail) - tl, "%s%s reads %s", tl ? ", " : "", sv,
			       got_s);
		if (now.v[p->attr] != v[i]) {
			const struct drv_param *dp = drvdb_param(drvdb_lookup(c->driver), p->key);

			val_diag(r, "%s %s -> %s: reads back %s (rounded%s%s)", val_obj_words[oi],
				 p->key, sv, got_s, dp && dp->gran ? "; drvdb: " : "",
				 dp && dp->gran ? dp->gran : "");
			(*nround)++;
		}
	}
	ret = undo_txn_rollback(mark);
	if (ret) {
		val_diag(r, "%s %s: not put back to %s: %s", val_obj_words[oi], p->key, cur_s,
			 strerror(-ret));
		(*nbad)++;
		return 0;
	}
	if (nl_open_genl(&ns, "ethtool"))
		return 0;
	ret = obj_get(&ns, obj, c->o.dev, &now);
	nl_close(&ns);
	if (!ret && now.v[p->attr] != cur->v[p->attr]) {
		obj_format_val(p, now.v[p->attr], got_s, sizeof(got_s));
		val_diag(r, "%s %s: reads %s after the restore, was %s", val_obj_words[oi], p->key,
			 got_s, cur_s);
		(*nbad)++;
	} else if (!ret) {
		val_diag(r, "%s %s (was %s): %s%sput back", val_obj_words[oi], p->key, cur_s, trail,
			 trail[0] ? "; " : "");
	}
	return 0;
}

/* Bound: every parameter reads its old value after the put-back (not-restored 0). A value read
 * back otherwise is rounding and a refusal is the kernel's extack: both reported, neither fails,
 * as a driver may round to its granularity and refuse what its hardware cannot do; a value that
 * cannot be put back leaves the user's device changed. */
static int check_round_trip(struct val_ctx *c, struct val_res *r)
{
	unsigned int oi, i, nparam = 0, nset = 0, nround = 0, nref = 0, nbad = 0;
	struct nl_sock ns;
	int ret = 0;

	for (oi = 0; oi < 3 && !ret; oi++) {
		const struct et_object *obj = val_objs[oi];
		struct et_vals cur;

		ret = nl_open_genl(&ns, "ethtool");
		if (ret)
			break;
		ret = obj_get(&ns, obj, c->o.dev, &cur);
		nl_close(&ns);
		if (ret) {
			val_diag(r, "%s: not reported by %s (%s)", val_obj_words[oi], c->o.dev,
				 strerror(-ret));
			ret = 0;
			continue;
		}
		for (i = 0; i < obj->n_params && !ret; i++) {
			const struct et_param *p = &obj->params[i];

			if (!vals_has(&cur, p->attr) || p->ro)
				continue;
			nparam++;
			ret = rt_param(c, r, oi, p, &cur, &nset, &nround, &nref, &nbad);
			if (!ret && et_stop_signal())
				ret = -EINTR;
		}
	}
	if (ret)
		return ret;
	val_measured(r, "parameters", nparam);
	val_measured(r, "values-set", nset);
	val_measured(r, "rounded", nround);
	val_measured(r, "refused", nref);
	val_measured(r, "not-restored", nbad);
	val_bound(r, "not-restored", 0);
	if (!nparam)
		val_set(r, VR_SKIP, "%s reports no settable coalesce, ring or channel parameter",
			c->o.dev);
	else if (nbad)
		val_set(r, VR_FAIL, "%u of %u parameters were not put back as they were", nbad,
			nparam);
	else
		val_set(r, VR_PASS,
			"%u parameters: %u values set and read back (%u rounded), %u "
			"refused by the device, every one put back",
			nparam, nset, nround, nref);
	return 0;
}

const struct val_entry val_check_round_trip = {
	.name = "round-trip",
	.run = check_round_trip,
};
