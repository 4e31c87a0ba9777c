/* Command handlers: the only functions that choose exit codes. */
#ifndef ETHTUNE_COMMANDS_H
#define ETHTUNE_COMMANDS_H

#include <stddef.h>

int cmd_show(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_rdma(int argc, char **argv);
int cmd_txlat(int argc, char **argv);

int cmd_sweep(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_matrix(int argc, char **argv);

/* One probe option by its long name as `ethtune probe --NAME VALUE` takes it (a matrix cell's
 * dimension or fixed value); a switch (nodelay) takes on or off. 0 or -EINVAL with one line. */
struct probe_cfg;
int probe_cmd_set(struct probe_cfg *cfg, const char *name, const char *value, char *err,
		  size_t errlen);

/* rdma probe's arguments (argv after "probe"): 0, CLI_HELP, or -EINVAL/-ERANGE with one line
 * in err. */
struct rdma_probe_opts;
int rdma_probe_parse(int argc, char **argv, struct rdma_probe_opts *o, char *err, size_t errlen);

#endif
