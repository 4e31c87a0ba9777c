/* validate's results as the checks record them: pass, fail or skip, why, diagnostics, numbers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate.h"

void val_diag(struct val_res *r, const char *fmt, ...)
{
	va_list ap;

	if (r->ndiag >= VAL_MAX_DIAG)
		return;
	va_start(ap, fmt);
	vsnprintf(r->diag[r->ndiag++], sizeof(r->diag[0]), fmt, ap);
	va_end(ap);
}

void val_set(struct val_res *r, enum val_result res, const char *fmt, ...)
{
	va_list ap;

	r->res = res;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static void val_num(struct val_num *v, unsigned int *n, const char *key, double x)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].key, key))
			break;
	if (i == VAL_MAX_NUM)
		return;
	snprintf(v[i].key, sizeof(v[i].key), "%s", key);
	v[i].v = x;
	if (i == *n)
		(*n)++;
}

void val_measured(struct val_res *r, const char *key, double v)
{
	val_num(r->measured, &r->nmeasured, key, v);
}

void val_bound(struct val_res *r, const char *key, double v)
{
	val_num(r->bound, &r->nbound, key, v);
}

void val_count(struct val_report *rep)
{
	unsigned int c;

	rep->passed = rep->failed = rep->skipped = 0;
	for (c = 0; c < VC__N; c++) {
		if (!rep->r[c].ran)
			continue;
		if (rep->r[c].res == VR_PASS)
			rep->passed++;
		else if (rep->r[c].res == VR_FAIL)
			rep->failed++;
		else
			rep->skipped++;
	}
}
