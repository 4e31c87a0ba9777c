/* ethtune tune: sweep the TX completion knob, pick a setting by objective, write a profile. */
#ifndef ETHTUNE_TUNE_H
#define ETHTUNE_TUNE_H

#include <stdbool.h>
#include <stdint.h>

struct sweep_opts;

struct tune_opts {
	int objective;	      /* tune_objective() of throughput|latency|cpu|balanced */
	const char *param;    /* coalescing parameter (NULL: the driver's TX knob) */
	unsigned int nvalues; /* 0: the default ladder (or 0,1 for a switch) */
	uint32_t values[32];
	const char *write_profile; /* write the recommendation here */
	const char *profile_name;  /* ... or to profiles/NAME-OBJECTIVE.profile */
	bool txlat;		   /* also measure completion latency with txlat */
};

/* Index of objective name, or -EINVAL. */
int tune_objective(const char *name);
struct coal_sweep;
struct coal_point;
/* The setting the objective's rule picks from a finished sweep (index, or -1 when none can be
 * picked); *excluded counts the orphaning settings left out, *fallback says that no setting met
 * the throughput rule at both TSQ limits and the largest worst-case share chose. */
int tune_pick(const struct coal_sweep *s, int obj, unsigned int *excluded, bool *fallback);
/* The settings the objective's rule accepts (ok[i] for each of s->n), before its cost chooses
 * among them: tune_pick() takes the first accepted one of the least tune_cost(). Returns how
 * many; *excluded as tune_pick(). profile merge asks every host's sweep this. */
unsigned int tune_accept(const struct coal_sweep *s, int obj, bool *ok, unsigned int *excluded);
/* What the rule minimises among accepted settings (lower is better): throughput and balanced
 * the completion interrupts per second, or where they cannot be counted (NaN irq-per-s) minus
 * the delay (the largest wins); latency the delay; cpu the sender CPU per Gbit/s. */
double tune_cost(const struct coal_point *p, int obj);
/* The objective's name, and its rule in words ("?" for an unknown index). */
const char *tune_objective_name(int obj);
const char *tune_rule(int obj);
/* Sweep, print the comparison and the recommendation, write the profile if asked
 * (sweep_prepare() done). 0, or -errno after one line: -EINVAL for a bad parameter. */
int tune_dev(const struct sweep_opts *o, const struct tune_opts *t);

#endif
