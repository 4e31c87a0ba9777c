/* Fuzz profile merge's reader: a tune result (JSON) into one host's sweep and provenance. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge_host h;
	char why[300], *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!merge_parse("fuzz", text, 0, &h, why, sizeof(why)))
		merge_host_free(&h);
	free(text);
	return 0;
}
