/* Fuzz the command line: every command's option table, set's KEY VALUE lists, value parsers. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "nl/devobj.h"
#include "util/ethtune.h"

#define MAXARG 32

static int opt_ok(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	return 0;
}

/* A device that reports every attribute with generous maxima. */
static void all_supported(struct et_vals *v)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < ET_MAX_ATTR; i++) {
		v->v[i] = 4096;
		v->present[i / 64] |= 1ULL << (i % 64);
	}
}

/* Input: a selector byte, then arguments separated by newlines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct et_object *const objs[] = { &et_coalesce, &et_rings, &et_channels };
	static struct et_vals cur;
	struct et_change ch[64];
	char *argv[MAXARG + 1], *text, *s, err[256];
	unsigned int n, ncmd = 0, sel;
	int argc = 0, i;
	uint64_t u64;
	uint32_t u32;
	double d;
	bool b;

	if (size < 1)
		return 0;
	sel = data[0];
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	argv[argc++] = "ethtune";
	for (s = text; argc < MAXARG && s; argc++) {
		argv[argc] = s;
		s = strchr(s, '\n');
		if (s)
			*s++ = '\0';
	}
	argv[argc] = NULL;
	while (cli_commands[ncmd])
		ncmd++;
	switch (sel % 3) {
	case 0:
		cli_parse(cli_commands[(sel / 3) % ncmd], &argc, argv, opt_ok, NULL, err,
			  sizeof(err));
		break;
	case 1:
		all_supported(&cur);
		obj_parse_changes(objs[(sel / 3) % 3], &cur, argc - 1, argv + 1, ch, &n, err,
				  sizeof(err));
		break;
	default:
		for (i = 1; i < argc; i++) {
			parse_u32(argv[i], &u32);
			parse_u64(argv[i], &u64);
			parse_size(argv[i], &u64);
			parse_rate(argv[i], &d);
			parse_on_off(argv[i], &b);
		}
	}
	free(text);
	return 0;
}
