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
/* Sweep, print the comparison and the recommendation, write the profile if asked
 * (sweep_prepare() done). 0, or -errno after one line: -EINVAL for a bad parameter. */
int tune_dev(const struct sweep_opts *o, const struct tune_opts *t);

#endif
