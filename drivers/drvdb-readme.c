/* Build-time tool: the README blocks that the driver knowledge (knowledge/drvdb.c) makes. */
#include <stdio.h>
#include <string.h>

#include "knowledge/drvdb.h"

int main(int argc, char **argv)
{
	const struct drv_info *d;
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < drvdb_count(); i++)
			printf("%s %s\n", drvdb_at(i)->driver, drvdb_at(i)->readme);
		return 0;
	}
	if (argc != 2 || !(d = drvdb_lookup(argv[1]))) {
		fprintf(stderr, "usage: drvdb-readme --list | DRIVER\n");
		return 2;
	}
	drvdb_readme(d, stdout);
	return 0;
}
