// SPDX-License-Identifier: GPL-2.0
/* Loads a BPF object, attaches every program in it (or the ones named after it), says
 * "attached", and holds them until SIGINT or SIGTERM: the benches' way to put programs on hooks
 * with nothing else running. */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* No names: every program. */
static bool wanted(const char *name, int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(name, argv[i]))
			return true;
	return argc == 2;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_program *p;
	struct bpf_object *o;
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bpf_attach OBJECT [PROGRAM]...\n");
		return 2;
	}
	o = bpf_object__open_file(argv[1], NULL);
	if (!o) {
		fprintf(stderr, "bpf_attach: %s: cannot open\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, o)
		bpf_program__set_autoload(p, wanted(bpf_program__name(p), argc, argv));
	if (bpf_object__load(o)) {
		fprintf(stderr, "bpf_attach: %s: cannot load\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, o) {
		if (!bpf_program__autoload(p))
			continue;
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "bpf_attach: %s: cannot attach\n", bpf_program__name(p));
			return 1;
		}
		n++;
	}
	if (argc > 2 && n != argc - 2) {
		fprintf(stderr, "bpf_attach: %s has %d of the %d programs named\n", argv[1], n,
			argc - 2);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
