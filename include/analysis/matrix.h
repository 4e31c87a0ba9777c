/* ethtune matrix: a declared grid of probes, interleaved in rounds until each cell is narrow. */
#ifndef ETHTUNE_MATRIX_H
#define ETHTUNE_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/probe.h"

#define MX_MAX_DIMS   8
#define MX_MAX_VALS   16 /* values per dimension */
#define MX_MAX_CELLS  512
#define MX_MAX_SETS   8 /* device and sysctl settings per cell, fixed ones included */
#define MX_MAX_VALUES PROBE_MAX_ITER
#define MX_WORD	      64

/* A device or sysctl setting: object "coalesce", "ring", "channels", "feature", "priv-flag",
 * "link", "napi", "bql" (devset_set keywords) or "sysctl" (key: net.ipv4.tcp_rmem). */
struct mx_set {
	char obj[16], key[MX_WORD], val[MX_WORD];
};

struct mx_cell {
	unsigned int nparam; /* one per dimension, in the file's order */
	char key[MX_MAX_DIMS][MX_WORD], val[MX_MAX_DIMS][MX_WORD];
	struct probe_cfg cfg;
	struct mx_set set[MX_MAX_SETS];
	unsigned int nset;
	double v[MX_MAX_VALUES]; /* one per round it was measured in */
	unsigned int n;
	const char *stop; /* "converged", "max-iterations", "budget", "interrupted", "failed" */
	char err[200];
};

struct mx_run {
	char name[MX_WORD], description[256], file[512];
	char test[16];
	char peer[256];
	const char *dev;  /* where settings go and what the environment shows; NULL: none */
	char devname[32]; /* the file's "dev" */
	double duration_s, warmup_s;
	unsigned int iter_min, iter_max;
	double width_pct; /* the 95% interval's full width as % of the mean */
	double budget_s;  /* 0: none */
	unsigned int ndims;
	char dim[MX_MAX_DIMS][MX_WORD];
	char dimval[MX_MAX_DIMS][MX_MAX_VALS][MX_WORD];
	unsigned int ndimval[MX_MAX_DIMS];
	struct mx_set fixed[MX_MAX_SETS]; /* settings every cell has */
	unsigned int nfixed;
	char fixed_probe[MX_MAX_SETS][2][MX_WORD]; /* probe options every cell has */
	unsigned int nfixed_probe;
	struct mx_cell *cell;
	unsigned int ncells;
	/* the run */
	char out_path[4096], host[MX_WORD], started[32], finished[32];
	char env_dev[32], peer_version[32];
	bool complete;
	unsigned int resumed; /* measurements taken from an earlier run */
};

/* One probe option by its long name as `ethtune probe --NAME VALUE` takes it, into cfg; 0, or
 * -EINVAL with one line in err. The probe command's own parser (probe_cmd_set), handed down by
 * the command: its option table is the one list of those names. */
typedef int (*mx_probe_opt_fn)(struct probe_cfg *cfg, const char *name, const char *value,
			       char *err, size_t errlen);
/* The matrix file at path (its JSON: name, test, durations, iterations, dimensions, fixed
 * settings) into m. 0, or -errno with one line in err naming the file and what is wrong. */
int mx_load(const char *path, struct mx_run *m, char *err, size_t errlen);
/* m's cells, one per combination of the dimensions' values (the last varies fastest), each
 * with its probe configuration (opt sets a probe option) and its settings. 0, -ENOMEM, or
 * -EINVAL with one line in err naming the cell. */
int mx_cells(struct mx_run *m, mx_probe_opt_fn opt, char *err, size_t errlen);
/* A stable text of what the matrix measures (name, test, durations, iterations, width,
 * dimensions and fixed settings): a run resumes only a file with the same one. */
void mx_identity(const struct mx_run *m, char *buf, size_t len);
/* Take the measurements of an unfinished result file at m->out_path of the same matrix. 0 (no
 * file: nothing taken), -EEXIST (it is complete), -ESTALE (another matrix), -EINVAL with err. */
int mx_resume(struct mx_run *m, char *err, size_t errlen);
/* Interleaved rounds over the cells (forward, then backward, ...), each cell probed once per
 * round until its interval is narrow (after iter_min) or iter_max, or the budget is spent; the
 * result file rewritten after each measurement. progress (may be NULL) after each. 0, -EINTR
 * (a stop signal: the file says incomplete), or -errno with err (a setting or probe failed). */
int mx_run(struct mx_run *m,
	   void (*progress)(const struct mx_run *m, const struct mx_cell *c, unsigned int round,
			    unsigned int done, unsigned int total),
	   char *err, size_t errlen);
/* The result document through out/json_print: a table in text, the result file's JSON. */
void mx_print(const struct mx_run *m);
/* "rcvbuf=8K msg-size=256": the cell's parameters in one line. */
void mx_cell_name(const struct mx_cell *c, char *buf, size_t len);
/* "Mbit/s" (stream, maerts) or "trans/s" (rr, crr): what the cell's values count. */
const char *mx_unit(const struct mx_cell *c);
/* Mean and 95% interval of a cell (NaN when n is 0; infinite ends below 2). */
void mx_cell_ci(const struct mx_cell *c, double *mean, double *lo, double *hi);

#endif
