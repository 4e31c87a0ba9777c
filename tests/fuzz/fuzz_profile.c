/* Fuzz the profile parser: INI text into a profile, every section and keyword checked. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "knowledge/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct profile p;
	char err[256], *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&p, 0, sizeof(p));
	profile_parse(text, "fuzz", "fuzz", &p, err, sizeof(err));
	free(text);
	return 0;
}
