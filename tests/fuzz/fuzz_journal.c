/* Fuzz the journal reader: whatever the file holds, a load either succeeds or names a line. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/journal.h"

static char dir[64], path[96];

/* the state directory goes with the process: a run leaves nothing in /tmp */
static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_entry *v = NULL;
	int fd, n;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ethtune-fuzz-journal.%d", (int)getpid());
		mkdir(dir, 0700);
		setenv("ETHTUNE_STATE_DIR", dir, 1);
		snprintf(path, sizeof(path), "%s/journal", dir);
		atexit(remove_dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	if (!journal_load(&v, &n))
		free(v);
	return 0;
}
