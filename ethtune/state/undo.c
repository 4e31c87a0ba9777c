/* Undo: journal entries back onto devices and sysctls through devset's structured API. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "state/devset.h"
#include "state/sysctl.h"
#include "state/journal.h"
#include "state/undo.h"
#include "util/ethtune.h"

#define MAX_KV 64

/* Entries restored by one request: same namespace, device and object (sysctls one by one). */
static bool same_group(const struct journal_entry *a, const struct journal_entry *b)
{
	return !strcmp(a->netns, b->netns) && !strcmp(a->dev, b->dev) &&
	       !strcmp(a->object, b->object) &&
	       (strcmp(a->object, "sysctl") || !strcmp(a->key, b->key));
}

/* Apply one group (same netns, dev, object): the oldest value per key, in one request. */
static int restore_group(const struct journal_entry *v, int n, int first, const bool *sel,
			 char *err, size_t errlen)
{
	const struct journal_entry *g = &v[first];
	struct devset_kv kv[MAX_KV] = {};
	unsigned int nkv = 0, k;
	int i, ret;

	if (!strcmp(g->object, "sysctl")) {
		for (i = 0; i < n; i++)
			if (sel[i] && same_group(&v[i], g))
				break;
		return devset_sysctl_raw(v[i].key, v[i].old, err, errlen);
	}
	for (i = 0; i < n && nkv < MAX_KV; i++) {
		bool seen = false;

		if (!sel[i] || !same_group(&v[i], g))
			continue;
		for (k = 0; k < nkv; k++)
			seen |= !strcmp(kv[k].key, v[i].key);
		if (seen)
			continue; /* keep the oldest value: what the user had */
		kv[nkv].key = v[i].key;
		kv[nkv++].val = v[i].old;
	}
	ret = devset_set(g->dev, g->object, kv, nkv, 0, err, errlen, NULL);
	if (!ret || ret == -ENODEV || nkv <= 1)
		return ret;
	/* One value the device refuses must not hold back the others: one request per key. A key
	 * the device does not support cannot have been changed, so there is nothing to undo. */
	ret = 0;
	for (k = 0; k < nkv; k++) {
		char e1[256];
		int r = devset_set(g->dev, g->object, &kv[k], 1, 0, e1, sizeof(e1), NULL);

		if (r == -EOPNOTSUPP) {
			et_warn("restore %s: %s", g->dev, e1);
		} else if (r) {
			snprintf(err, errlen, "%s", e1);
			ret = r;
		}
	}
	return ret;
}

struct group_ctx {
	const struct journal_entry *v;
	int n, first;
	const bool *sel;
};

/* In the child netns_run() made inside the entry's namespace: -ENODEV when the device is gone. */
static int restore_group_child(void *arg)
{
	const struct group_ctx *c = arg;
	const struct journal_entry *g = &c->v[c->first];
	char err[512];
	int ret = restore_group(c->v, c->n, c->first, c->sel, err, sizeof(err));

	if (ret)
		fprintf(stderr, "ethtune: restore %s %s: %s\n", g->dev, g->object, err);
	return ret == -ENODEV ? -ENODEV : ret ? -EIO : 0;
}

/* The group in a child that enters the entry's namespace: 0, -ENODEV (device or namespace
 * gone) or -EIO. */
static int restore_group_in(const struct journal_entry *v, int n, int first, const bool *sel)
{
	struct group_ctx c = { v, n, first, sel };
	const struct journal_entry *g = &v[first];
	int ret = netns_run(g->netns, restore_group_child, &c);

	if (ret == -ENONET) {
		fprintf(stderr, "ethtune: restore %s %s: network namespace '%s' is gone\n", g->dev,
			g->object, g->netns);
		return -ENODEV;
	}
	return ret == -ENODEV || !ret ? ret : -EIO;
}

/* Restore the selected entries of this namespace in this process; others in a child that
 * enters their namespace. Returns the number that could not be restored. */
static int restore_selected(const struct journal_entry *v, int n, const bool *sel, bool *done,
			    bool *gone, int *missing)
{
	int i, j, bad = 0;
	char err[512], cur[64];

	netns_current_name(cur, sizeof(cur));
	/* Newest groups first, so a later change is undone before the one it built on. */
	for (i = n - 1; i >= 0; i--) {
		bool group_done = false;
		int ret;

		if (!sel[i] || done[i])
			continue;
		for (j = 0; j < n; j++)
			if ((done[j] || gone[j]) && same_group(&v[j], &v[i]))
				group_done = true;
		if (group_done)
			continue;
		err[0] = '\0';
		if (!strcmp(v[i].netns, cur))
			ret = restore_group(v, n, i, sel, err, sizeof(err));
		else
			ret = restore_group_in(v, n, i, sel);
		if (ret == -ENODEV) {
			if (err[0])
				et_warn("restore %s: device is gone; keeping its journal entries "
					"('ethtune restore --forget' drops them)",
					v[i].dev[0] ? v[i].dev : v[i].key);
			for (j = 0; j < n; j++)
				if (sel[j] && same_group(&v[j], &v[i]))
					gone[j] = true;
			(*missing)++;
			bad++;
			continue;
		}
		if (ret) {
			if (err[0])
				et_err("restore %s %s: %s", v[i].dev, v[i].object, err);
			bad++;
			continue;
		}
		for (j = 0; j < n; j++)
			if (sel[j] && same_group(&v[j], &v[i]))
				done[j] = true;
	}
	return bad;
}

static bool selected(const struct undo_sel *s, const struct journal_entry *e, int idx)
{
	switch (s->which) {
	case UNDO_ORPHANS:
		return e->temp && !journal_owner_alive(e);
	case UNDO_OWN_TEMPS:
		return e->temp && e->pid == getpid();
	case UNDO_SINCE:
		return idx >= s->mark;
	case UNDO_MATCH:
		break;
	}
	return (!s->dev || !strcmp(e->dev, s->dev)) && (!s->netns || !strcmp(e->netns, s->netns));
}

int undo_restore(const struct undo_sel *s, int *restored, int *kept)
{
	struct journal_view jv;
	bool *sel, *done, *gone;
	int i, missing = 0, bad, ret;

	if (restored)
		*restored = 0;
	if (kept)
		*kept = 0;
	ret = journal_open(&jv);
	if (ret || !jv.n)
		return ret ? ret : journal_close(&jv, NULL);
	sel = calloc(jv.n, sizeof(bool));
	done = calloc(jv.n, sizeof(bool));
	gone = calloc(jv.n, sizeof(bool));
	for (i = 0; i < jv.n && sel && done && gone; i++)
		sel[i] = selected(s, &jv.e[i], i);
	bad = sel && done && gone ? restore_selected(jv.e, jv.n, sel, done, gone, &missing)
				  : -ENOMEM;
	for (i = 0; i < jv.n && bad >= 0; i++) {
		if (gone[i] && s->forget) {
			done[i] = true;
			et_info("ethtune: forgot %s%s%s %s (was %s) of namespace %s: gone",
				jv.e[i].dev, jv.e[i].dev[0] ? " " : "", jv.e[i].object, jv.e[i].key,
				jv.e[i].old, jv.e[i].netns[0] ? jv.e[i].netns : "(initial)");
		}
		if (done[i] && !gone[i] && restored)
			(*restored)++;
		if (sel[i] && !done[i] && kept)
			(*kept)++;
	}
	journal_close(&jv, bad >= 0 ? done : NULL);
	free(sel);
	free(done);
	free(gone);
	if (bad < 0)
		return bad;
	return bad > missing ? -EIO : 0;
}

int undo_txn_rollback(int mark)
{
	int restored, kept, ret;

	ret = undo_restore(&(struct undo_sel){ .which = UNDO_SINCE, .mark = mark }, &restored,
			   &kept);
	return ret ? ret : kept ? -EIO : 0;
}

static void temp_restore_atexit(void)
{
	if (journal_temp_active())
		undo_temp_end();
}

int undo_temp_begin(void)
{
	static bool registered;

	if (!registered) {
		atexit(temp_restore_atexit);
		registered = true;
	}
	et_catch_stop_signals();
	journal_set_temp(true, 0);
	return 0;
}

int undo_temp_end(void)
{
	int restored, kept, ret = 0;

	if (journal_temp_active()) {
		journal_set_temp(false, 0);
		ret = undo_restore(&(struct undo_sel){ .which = UNDO_OWN_TEMPS }, &restored, &kept);
		if (kept) {
			et_warn("%d temporary change(s) could not be restored; see 'ethtune "
				"restore --list'",
				kept);
			ret = ret ? ret : -EIO; /* a device that went: its values are not back */
		}
	}
	et_stop_reraise();
	return ret;
}

void undo_command_done(void)
{
	undo_temp_end();
}
