/* ethtune completion bash: the shell completion script, generated from the command tables. */
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"

const struct cli_cmd cli_completion = {
	.name = "completion",
	.fn = cmd_completion,
	.synopsis = "bash",
	.opts = { NULL },
	.subcmds = "bash",
};

int cmd_completion(int argc, char **argv)
{
	int rc;

	if (cli_args(&cli_completion, &argc, argv, NULL, NULL, &rc))
		return rc;
	if (argc != 2 || strcmp(argv[1], "bash"))
		return cli_usage_err(&cli_completion, "only 'completion bash' is supported");
	cli_completion_bash(stdout);
	return EXIT_OK;
}
