/* Prometheus metrics (--prom FILE): node_exporter's textfile-collector format, written whole. */
#ifndef ETHTUNE_PROM_H
#define ETHTUNE_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Use: prom_new(), prom_labels() for the labels every sample carries (device, driver), then
 * the samples: each names its family (declared on first use with its type and HELP) and adds
 * its own labels as "name", "value" pairs ending with NULL. prom_write() writes the families in
 * the order they were first used, each with one HELP and one TYPE line, to a temporary file in
 * the target's directory renamed over it (the collector reads only *.prom, never the .tmp).
 * Values of a run are what that run measured: the file is replaced by the next run.
 * A NaN value is a missing one: no sample, as JSON leaves the key out.
 */

enum prom_type { PROM_GAUGE, PROM_COUNTER, PROM_HISTOGRAM };

struct prom;

/* An empty set of families; NULL when out of memory. */
struct prom *prom_new(void);
void prom_free(struct prom *p);
/* The labels every sample added afterwards carries first ("name", "value", ..., NULL); at most
 * PROM_MAX_COMMON pairs. 0 or -EINVAL. */
#define PROM_MAX_COMMON 4
int prom_labels(struct prom *p, ...) __attribute__((sentinel));
/* One sample of a gauge or counter family name (the type and help of its first use stand),
 * with its own labels after the common ones. 0 or -errno (-EINVAL: a bad name, a label value
 * that is NULL, a family used with two types); an error is kept, and prom_write() returns it. */
int prom_sample(struct prom *p, const char *name, enum prom_type type, const char *help,
		double value, ...) __attribute__((sentinel));
/* One histogram of family name: n upper bounds le[] (seconds, increasing) with the number of
 * observations at or below each, cum[] (non-decreasing, at most count), their count and sum:
 * name_bucket{le} for each bound and "+Inf", name_sum, name_count. 0 or -EINVAL. */
int prom_histogram(struct prom *p, const char *name, const char *help, const double *le,
		   const uint64_t *cum, unsigned int n, uint64_t count, double sum, ...)
	__attribute__((sentinel));
/* The text of every family, as prom_write() writes it; 0 or the first error kept. */
int prom_format(const struct prom *p, FILE *f);
/* The families to path, whole or not at all; 0 or -errno (the first error kept, if any). */
int prom_write(const struct prom *p, const char *path);
/* The end of a command's metrics: ethtune_last_run_timestamp_seconds{command} now (with the
 * common labels), then prom_write() to path, one line on failure; frees p. 0 or -errno. */
int prom_finish(struct prom *p, const char *path, const char *command);
/* Whether path can take the metrics, asked before a run starts: a name ending in .prom (the
 * textfile collector reads no other) in a directory that exists and can be written. 0, or
 * -errno with one line in why ("--prom PATH: ..."). */
int prom_check_path(const char *path, char *why, size_t len);
/* A value as the exposition format writes it: the shortest decimal that reads back as v,
 * "NaN", "+Inf" or "-Inf". */
void prom_format_value(double v, char *buf, size_t len);

#endif
