/* The one output path: 64-bit values in text whatever width the caller's format names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "out/json_print.h"

static void wide_values(void *arg)
{
	(void)arg;
	new_json_obj(0);
	print_uint(PRINT_ANY, "a", "%u|", 1ULL << 33);
	print_uint(PRINT_ANY, "b", "%8u|", 5);
	print_uint(PRINT_ANY, "c", "%llu|", 18446744073709551615ULL);
	print_int(PRINT_ANY, "d", "%d|", -(1LL << 40));
	print_uint(PRINT_ANY, "e", "%lx|", 0xabcdef012ULL);
	print_uint(PRINT_ANY, "f", "100%% %u%%|", 4294967296ULL);
	print_uint(PRINT_ANY, "g", "no number|", 7);
	delete_json_obj();
}

static void test_text_is_64_bit(void **state)
{
	char *s = capture_stdout(wide_values, NULL);

	(void)state;
	assert_string_equal(s, "8589934592|       5|18446744073709551615|-1099511627776|abcdef012|"
			       "100% 4294967296%|no number|");
	free(s);
}

static void json_values(void *arg)
{
	(void)arg;
	new_json_obj(1);
	print_uint(PRINT_ANY, "a", "%u", 1ULL << 33);
	print_int(PRINT_ANY, "d", "%d", -5);
	delete_json_obj();
}

static void test_json_keeps_value(void **state)
{
	char *s = capture_stdout(json_values, NULL);

	(void)state;
	assert_non_null(strstr(s, "\"a\": 8589934592"));
	assert_non_null(strstr(s, "\"d\": -5"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_is_64_bit),
		cmocka_unit_test(test_json_keeps_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
