// SPDX-License-Identifier: GPL-2.0
/* Loads a BPF object, attaches every program in it, says "attached", and holds them until
 * SIGINT or SIGTERM: the benches' way to put programs on hooks with nothing else running. */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_program *p;
	struct bpf_object *o;

	if (argc != 2) {
		fprintf(stderr, "usage: bpf_attach OBJECT\n");
		return 2;
	}
	o = bpf_object__open_file(argv[1], NULL);
	if (!o || bpf_object__load(o)) {
		fprintf(stderr, "bpf_attach: %s: cannot load\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, o) {
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "bpf_attach: %s: cannot attach\n", bpf_program__name(p));
			return 1;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
