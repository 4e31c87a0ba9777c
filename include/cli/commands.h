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
int cmd_profile(int argc, char **argv);
int cmd_rdma(int argc, char **argv);
int cmd_txlat(int argc, char **argv);

int cmd_sweep(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* rdma probe's arguments (argv after "probe"): 0, CLI_HELP, or -EINVAL/-ERANGE with one line
 * in err. */
struct rdma_probe_opts;
int rdma_probe_parse(int argc, char **argv, struct rdma_probe_opts *o, char *err, size_t errlen);

#endif
