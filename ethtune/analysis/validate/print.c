/* validate's report: the results the checks record, printed as KTAP or as one JSON document. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate.h"
#include "out/json_print.h"
#include "out/prom.h"

static const char *result_name(enum val_result r)
{
	return r == VR_PASS ? "pass" : r == VR_FAIL ? "fail" : "skip";
}

/* "k v, k v" of n numbers, for a KTAP diagnostic line. */
static void nums_text(const struct val_num *v, unsigned int n, char *buf, size_t len)
{
	unsigned int i;
	size_t o = 0;

	buf[0] = 0;
	for (i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o,
			      v[i].v == floor(v[i].v) && fabs(v[i].v) < 1e15 ? "%s%s %.0f"
									     : "%s%s %.4g",
			      i ? ", " : "", v[i].key, v[i].v);
}

static void nums_json(const char *key, const struct val_num *v, unsigned int n)
{
	unsigned int i;

	open_json_object(key);
	for (i = 0; i < n; i++)
		print_float(PRINT_JSON, v[i].key, NULL, v[i].v);
	close_json_object();
}

void val_print(const struct val_report *rep, bool json)
{
	unsigned int c, n = 0, k = 0, i;
	char buf[600];

	for (c = 0; c < VC__N; c++)
		n += rep->r[c].ran;
	new_json_obj(json);
	print_text("KTAP version 1\n");
	print_string(PRINT_ANY, "device", "# ethtune validate %s", rep->dev);
	print_string(PRINT_ANY, "driver", " (driver %s", rep->driver[0] ? rep->driver : "?");
	if (rep->kind[0])
		print_string(PRINT_ANY, "kind", ", %s", rep->kind);
	if (rep->peer[0])
		print_string(PRINT_ANY, "peer", ") via %s\n", rep->peer);
	else
		print_text(") without a peer\n");
	print_text("1..%u\n", n);
	open_json_array(PRINT_JSON, "checks");
	for (c = 0; c < VC__N; c++) {
		const struct val_res *r = &rep->r[c];
		const char *name = val_check_name(c);

		if (!r->ran)
			continue;
		k++;
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, name);
		print_uint(PRINT_JSON, "number", NULL, k);
		print_string(PRINT_JSON, "result", NULL, result_name(r->res));
		print_bool(PRINT_JSON, "warning", NULL, r->warn);
		print_string(PRINT_JSON, "reason", NULL, r->reason);
		open_json_array(PRINT_JSON, "diagnostics");
		for (i = 0; i < r->ndiag; i++) {
			print_text("# %s: ", name);
			print_string(PRINT_ANY, NULL, "%s\n", r->diag[i]);
		}
		close_json_array(PRINT_JSON, NULL);
		nums_json("measured", r->measured, r->nmeasured);
		nums_json("bound", r->bound, r->nbound);
		close_json_object();
		if (r->res != VR_SKIP) {
			print_text("# %s: %s%s\n", name,
				   r->res == VR_FAIL ? "FAIL: "
				   : r->warn	     ? "WARNING: "
						     : "",
				   r->reason);
		}
		if (r->nmeasured) {
			nums_text(r->measured, r->nmeasured, buf, sizeof(buf));
			print_text("# %s: measured %s\n", name, buf);
		}
		if (r->nbound) {
			nums_text(r->bound, r->nbound, buf, sizeof(buf));
			print_text("# %s: bound %s\n", name, buf);
		}
		if (r->res == VR_SKIP)
			print_text("ok %u %s # SKIP %s\n", k, name, r->reason);
		else
			print_text("%s %u %s\n", r->res == VR_PASS ? "ok" : "not ok", k, name);
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "passed", "# %u passed", rep->passed);
	print_uint(PRINT_ANY, "failed", ", %u failed", rep->failed);
	print_uint(PRINT_ANY, "skipped", ", %u skipped", rep->skipped);
	print_float(PRINT_ANY, "elapsed-s", " in %.1f s\n", rep->elapsed_s);
	delete_json_obj();
}

int val_prom(const struct val_report *rep, struct prom *p)
{
	unsigned int c;

	for (c = 0; c < VC__N; c++) {
		const struct val_res *r = &rep->r[c];
		const char *name = val_check_name(c);

		if (!r->ran)
			continue;
		/* a SKIP has no pass or fail: no sample, so that an alert on 0 sees failures only
		 */
		if (r->res != VR_SKIP) {
			prom_sample(p, "ethtune_validate_check_passed", PROM_GAUGE,
				    "1 when the check passed in the last validate run, 0 when it "
				    "failed; absent when it was skipped.",
				    r->res == VR_PASS, "check", name, NULL);
			prom_sample(
				p, "ethtune_validate_check_warning", PROM_GAUGE,
				"1 when the check passed with a warning in the last validate run "
				"(--allow-orphan), else 0; absent when it was skipped.",
				r->warn, "check", name, NULL);
		}
		prom_sample(p, "ethtune_validate_check_skipped", PROM_GAUGE,
			    "1 when the check was skipped in the last validate run (its needs not "
			    "met: no peer, a software device), 0 when it ran.",
			    r->res == VR_SKIP, "check", name, NULL);
	}
	prom_sample(p, "ethtune_validate_checks", PROM_GAUGE,
		    "Checks of the last validate run by result.", rep->passed, "result", "passed",
		    NULL);
	prom_sample(p, "ethtune_validate_checks", PROM_GAUGE, "", rep->failed, "result", "failed",
		    NULL);
	prom_sample(p, "ethtune_validate_checks", PROM_GAUGE, "", rep->skipped, "result", "skipped",
		    NULL);
	return prom_sample(p, "ethtune_validate_elapsed_seconds", PROM_GAUGE,
			   "Length of the last validate run.", rep->elapsed_s, NULL);
}
