/* Compiled-in per-driver knowledge: what governs TX completion, defaults, pathologies, sources. */
#ifndef ETHTUNE_DRVDB_H
#define ETHTUNE_DRVDB_H

#include <stdbool.h>
#include <stdio.h>

/* How a driver returns transmitted skbs to the stack. */
enum drv_completion {
	DRV_COMPL_IRQ,	     /* TX completion interrupt, moderated by coalescing */
	DRV_COMPL_SHARED,    /* TX cleaned in the RX/shared interrupt; RX moderation governs it */
	DRV_COMPL_ORPHAN,    /* skb orphaned at xmit: TSQ/BQL blind (mode-dependent) */
	DRV_COMPL_NEXT_XMIT, /* reaped by the next transmit or a timer */
	DRV_COMPL_SOFTWARE,  /* software device: freed by the peer/receiver */
};

/* One tunable that matters for TX completion. */
struct drv_param {
	const char *key;    /* ethtool keyword (tx-usecs) or priv flag ("priv-flag:tx_cqe_moder") */
	const char *role;   /* what it does for TX completion on this driver */
	const char *unit;   /* "us", "frames", "on|off", "1.024 us" */
	const char *gran;   /* granularity / range as text, NULL unknown */
	const char *dflt;   /* default as text, NULL unknown */
	const char *source; /* kernel file or commit */
	/* Values below mode_below select a dynamic mode, whose longest interval is
	 * dynamic_max_us (e1000e rx-usecs 1-4: ITR down to 4000/s). 0: no such modes. */
	unsigned int mode_below, dynamic_max_us;
	/* The knob caps the interrupt rate (a least interval between interrupts, e1000e's ITR)
	 * rather than delaying each completion: after a quiet spell longer than it the next
	 * interrupt is not held, so one skb in flight never waits for it. */
	bool rate_limit;
};

struct drv_pathology {
	const char *what;
	const char *remedy;
	const char *source;
};

struct drv_info {
	const char *driver;	    /* name as `ethtool -i` reports it */
	const char *const *aliases; /* other names reported (NULL-terminated) or NULL */
	const char *summary;	    /* one line: how TX completion works */
	enum drv_completion completion;
	bool bql;	      /* calls netdev_tx_completed_queue() */
	const char *adaptive; /* dynamic moderation for TX (DIM/ITR), NULL none */
	const struct drv_param *params;
	unsigned int n_params;
	const struct drv_pathology *paths;
	unsigned int n_paths;
	const char *profile; /* shipped default profile (profiles/NAME.profile) */
	const char *readme;  /* drivers/<dir>/README.md */
};

/* Who frees a transmitted skb on a software device (no TX completion of its own to tune). */
enum drv_software {
	DRV_SW_NONE,	 /* a hardware driver's TX completion */
	DRV_SW_RECEIVER, /* the receiving end consumes it (veth, netkit, loopback) */
	DRV_SW_READER,	 /* the reader of the device takes it (tun/tap) */
	DRV_SW_LOWER,	 /* handed on to another device or dropped (bridge, macvlan, dummy...) */
};
/* The one software-device test: by the driver's knowledge entry, its name or the rtnetlink
 * link kind ("loopback" for lo); either may be NULL or "". */
enum drv_software drvdb_software(const char *driver, const char *kind);

/* Entry for a driver name (or alias) as `ethtool -i` reports it; NULL if unknown. */
const struct drv_info *drvdb_lookup(const char *driver);
/* The entries in table order (README generation, tests); drvdb_at() NULL past the end. */
unsigned int drvdb_count(void);
const struct drv_info *drvdb_at(unsigned int i);
const struct drv_param *drvdb_param(const struct drv_info *d, const char *key);
/* The number a documented default starts with ("16 (16 in CQE mode)": 16). 0, or -ENOENT when
 * the driver, the key or a numeric default is unknown. */
int drvdb_default_u32(const char *driver, const char *key, unsigned int *v);
/* The block of d's README (drivers/<dir>/README.md) that these facts make, markers included:
 * tools/drvdb-readme.c writes it, tests/unit/drvdb_readme.sh checks it. */
void drvdb_readme(const struct drv_info *d, FILE *f);
#define DRVDB_README_BEGIN                                                                         \
	"<!-- drvdb: generated from ethtune/knowledge/drvdb.c by `make readmes`; edit drvdb.c -->"
#define DRVDB_README_END "<!-- drvdb: end -->"
const char *drvdb_completion_name(enum drv_completion c);
struct et_vals;
/* The coalescing keyword that governs this driver's TX completion, of those cur reports (the
 * same choice for diagnose and tune); *dp its knowledge entry or NULL. NULL when none. */
const char *drvdb_tx_knob(const char *driver, const struct et_vals *cur,
			  const struct drv_param **dp);
/* Print the entry for driver under the current JSON object ("driver-knowledge"); prints
 * n/a when unknown. For `ethtune show`. */
void drvdb_show(const char *driver);

#endif
