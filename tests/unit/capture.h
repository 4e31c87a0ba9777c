/* Unit-test helper: what a function writes to stdout, as a string (include after cmocka.h). */
#ifndef ETHTUNE_TESTS_CAPTURE_H
#define ETHTUNE_TESTS_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Stdout of fn(arg) as a string (the caller frees it). */
static inline char *capture_stdout(void (*fn)(void *), void *arg)
{
	FILE *tmp = tmpfile();
	int saved;
	long n;
	char *s;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	fn(arg);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = ftell(tmp);
	rewind(tmp);
	s = calloc(1, n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, n, tmp), (size_t)n);
	fclose(tmp);
	return s;
}

#endif
