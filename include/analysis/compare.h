/* ethtune compare: two matrix results cell by cell, Welch's t-test under Holm-Bonferroni. */
#ifndef ETHTUNE_COMPARE_H
#define ETHTUNE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/stats.h"

/* The result files this reads (ethtune matrix, "schema-version"). */
#define CMP_RESULT_VERSION 1
/* Family-wise error rate of one comparison: two runs of one configuration flag no cell in at
 * least 19 of 20 comparisons. */
#define CMP_ALPHA_DEFAULT 0.05
/* A significant change smaller than this, in percent of the base mean, is no change. */
#define CMP_THRESHOLD_DEFAULT 5.0

/* One parameter of a cell ("rcvbuf" "8K"). */
struct cmp_kv {
	const char *key, *val;
};

struct cmp_cell {
	struct cmp_kv *params;
	unsigned int nparams;
	const char *unit; /* the cell's, else the matrix's; NULL: none */
	double *values;
	unsigned int n;
};

enum cmp_env_kind { CMP_ENV_STRING, CMP_ENV_INT, CMP_ENV_REAL, CMP_ENV_BOOL, CMP_ENV_OTHER };

/* One leaf of a result's "environment", flattened: "sysctls.net.ipv4.tcp_rmem",
 * "device.coalesce.tx-usecs", arrays by index ("irqs.0"). */
struct cmp_env {
	char *key;
	char *text; /* a string as it is; any other value as JSON ("0", "true", "null", "{}") */
	enum cmp_env_kind kind;
	double num; /* INT, REAL, BOOL (0/1) */
};

/* One result file of ethtune matrix. Strings point into doc (or, built by hand, anywhere). */
struct cmp_result {
	char *path; /* as given, for messages */
	const char *host, *matrix, *test, *unit;
	bool complete;
	unsigned int planned; /* cells the matrix's dimensions make; 0: unknown */
	struct cmp_cell *cells;
	unsigned int ncells;
	struct cmp_env *env;
	unsigned int nenv;
	void *doc; /* the parsed document (json_t), owned */
};

/* BASE or NEW: one result file, or a directory's *.json (one per host). */
struct cmp_side {
	char *path; /* as given */
	struct cmp_result *r;
	unsigned int n;
	bool dir;
};

enum cmp_verdict { CMP_NO_CHANGE, CMP_REGRESSION, CMP_IMPROVEMENT, CMP_INCONCLUSIVE };

/* A cell in both results. */
struct cmp_row {
	const struct cmp_cell *base, *new;
	struct et_ci b,
		n; /* mean and 95% Student-t interval of the values (lo/hi infinite: n < 2) */
	double delta_pct; /* (new - base) / base * 100; NAN when not defined */
	double p, p_adj;  /* Welch's two-sided p, Holm-adjusted; NAN: not tested */
	bool tested;	  /* one of the Holm family */
	enum cmp_verdict verdict;
	char reason[160]; /* inconclusive: why; otherwise a remark or "" */
};

/* A cell in one result only. */
struct cmp_unmatched {
	const struct cmp_cell *cell;
	bool in_new;
};

/* An environment key whose value differs, or that one side lacks (NULL). */
struct cmp_envdiff {
	const char *key;
	const struct cmp_env *b, *n;
};

struct cmp_host {
	const struct cmp_result *base, *new;
	struct cmp_row *rows;
	unsigned int nrows;
	struct cmp_unmatched *un;
	unsigned int nun;
	struct cmp_envdiff *env;
	unsigned int nenv;
};

/* A host in one side only: reported, not compared. */
struct cmp_lone {
	const struct cmp_result *r;
	bool in_new;
};

struct cmp_opts {
	double alpha;	      /* family-wise, 0 < alpha < 1 */
	double threshold_pct; /* >= 0 */
	bool json;
};

struct cmp_report {
	const char *base_path, *new_path; /* the sides' */
	double alpha, threshold_pct;
	struct cmp_host *hosts;
	unsigned int nhosts;
	struct cmp_lone *lone;
	unsigned int nlone;
	unsigned int tested; /* cells in the Holm family, over every host */
	unsigned int regressions, improvements, unchanged, inconclusive, unmatched;
};

/* Read one result from text (name: for messages). 0, -EINVAL with one line "name: problem" in
 * err, or -ENOMEM. */
int cmp_load_text(const char *name, const char *text, struct cmp_result *r, char *err,
		  size_t errlen);
/* Read a result file, or every *.json of a directory (sorted by name, one per host). 0 or -errno
 * (-EINVAL: not a result, -ENOENT...), one line naming the file in err. */
int cmp_load(const char *path, struct cmp_side *s, char *err, size_t errlen);
void cmp_result_free(struct cmp_result *r);
void cmp_side_free(struct cmp_side *s);

/* Holm-Bonferroni step-down: adj[i] for p[i] of n tests (monotone in p, at most 1). */
void cmp_holm(const double *p, unsigned int n, double *adj);
/* Environment keys whose values differ or that one side lacks ("date", "hostname" left out), in
 * base order then new-only keys. 0 or -ENOMEM. */
int cmp_env_diff(const struct cmp_result *b, const struct cmp_result *n, struct cmp_envdiff **d,
		 unsigned int *nd);
/* Pair the hosts (two files: with each other; otherwise by "host"), match cells by params, test
 * each matched cell, adjust over all of them and give the verdicts. 0 or -ENOMEM. */
int cmp_compare(const struct cmp_side *base, const struct cmp_side *new, double alpha,
		double threshold_pct, struct cmp_report *rep);
void cmp_report_free(struct cmp_report *rep);
const char *cmp_verdict_name(enum cmp_verdict v);
/* "rcvbuf=8K msg-size=256" */
void cmp_params_str(const struct cmp_cell *c, char *buf, size_t len);
/* The same params, key by key, in any order. */
bool cmp_params_equal(const struct cmp_cell *a, const struct cmp_cell *b);

/* The report as text (a table per host, the environment diff) or one JSON document. */
void cmp_print(const struct cmp_report *rep, bool json);
/* The command's engine: load both, compare, print. 0 (*regressions set) or -errno with one line
 * in err. */
int cmp_run(const char *base, const char *new, const struct cmp_opts *o, unsigned int *regressions,
	    char *err, size_t errlen);

#endif
