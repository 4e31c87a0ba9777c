/* Command tables: one option table per command drives its parser, its --help and completion. */
#ifndef ETHTUNE_CLI_H
#define ETHTUNE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One option; a table ends with CLI_END. id is the short letter, or an id >= 256 for an option
 * that has only a long name; the command's callback sees it. */
struct cli_opt {
	const char *name;    /* long name without "--" */
	int id;		     /* short letter or >= 256 */
	int has_arg;	     /* no_argument or required_argument */
	const char *metavar; /* argument's name in the usage; FILE completes file names */
	const char *help;
};
#define CLI_END                                                                                    \
	{                                                                                          \
		NULL, 0, 0, NULL, NULL                                                             \
	}
#define CLI_LONG 256 /* first id of long-only options */

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *synopsis;	       /* positional part of the usage, may span lines */
	const struct cli_opt *opts[3]; /* tables merged in order; NULL ends the list */
	const char *subcmds;	       /* words completed as positional arguments */
	bool dev_arg;		       /* positional arguments complete network device names */
};

/* Called for each option in command-line order (NULL: the command has no options of its own):
 * 0, or -EINVAL/-ERANGE with one line in err. */
typedef int (*cli_opt_fn)(void *ctx, int id, const char *arg, char *err, size_t errlen);

/*
 * Parse argv[1..argc) of command c with its tables (plus -h/--help). Positional arguments are
 * moved, in order, to argv[1..*argc) (*argc is updated). Returns true when the handler must
 * return *rc now: help was printed (EXIT_OK) or an error line was (EXIT_USAGE).
 */
bool cli_args(const struct cli_cmd *c, int *argc, char **argv, cli_opt_fn fn, void *ctx, int *rc);
/* The same without printing: 0, CLI_HELP, or -EINVAL/-ERANGE with the line (no prefix) in err. */
#define CLI_HELP 1
int cli_parse(const struct cli_cmd *c, int *argc, char **argv, cli_opt_fn fn, void *ctx, char *err,
	      size_t errlen);

void cli_usage(FILE *f, const struct cli_cmd *c);
/* One line for a bad command line: "ethtune: CMD: msg" and EXIT_USAGE. */
int cli_usage_err(const struct cli_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every command, in the order of the top-level usage; NULL-terminated. */
extern const struct cli_cmd *const cli_commands[];
/* The bash completion script generated from the tables. */
void cli_completion_bash(FILE *f);

/* Per-command tables (ethtune/cli/<command>.c). */
extern const struct cli_cmd cli_show, cli_set, cli_restore, cli_serve, cli_probe, cli_txlat,
	cli_sweep, cli_diagnose, cli_tune, cli_validate, cli_model, cli_profile, cli_rdma, cli_completion,
	cli_matrix, cli_compare;

/* Options sweep, diagnose and tune share (ethtune/cli/sweep_opts.c). */
struct sweep_opts;
extern const struct cli_opt sweep_common_opts[];
/* The defaults diagnose and tune share: sweep_opts_init(), 1.5 s probes after 0.3 s warm-up. */
void sweep_cmd_defaults(struct sweep_opts *o);
/* One common option: 0 taken, 1 not a common one, -EINVAL with err on a bad value. */
int sweep_common_opt(struct sweep_opts *o, int id, const char *arg, char *err, size_t errlen);
/* o->dev from the positional argument argv[first], if any; EXIT_USAGE on a second one. */
int sweep_cmd_dev(const struct cli_cmd *c, struct sweep_opts *o, int argc, char **argv, int first);
/* Device, peer, privilege and --netns checks; prints the error; an exit code or 0. */
int sweep_prepare(struct sweep_opts *o, const char *cmd);

#endif
