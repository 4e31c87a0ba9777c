/* serve's shared-secret authentication: a key file, challenges and their HMAC-SHA256 answers. */
#ifndef ETHTUNE_PROBE_AUTH_H
#define ETHTUNE_PROBE_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_KEY_MIN 16	  /* bytes: a shorter secret is refused */
#define AUTH_KEY_MAX 4096 /* bytes */
#define AUTH_HEX_LEN 64	  /* a challenge or an answer: 32 bytes as lowercase hex */

struct auth_key {
	bool set;
	size_t len;
	unsigned char k[AUTH_KEY_MAX];
};

/* The key in PATH: its content less one trailing newline, AUTH_KEY_MIN..AUTH_KEY_MAX bytes, in
 * a regular file no one but its owner can read or write. 0, or -errno with one line in err. */
int auth_key_load(const char *path, struct auth_key *key, char *err, size_t errlen);
/* The key file a command uses: --key-file, else $ETHTUNE_KEY_FILE; NULL: none. */
const char *auth_key_file(void);
/* A fresh random challenge (AUTH_HEX_LEN hex digits and a NUL). 0 or -errno. */
int auth_challenge(char out[AUTH_HEX_LEN + 1]);
/* The answer to a challenge for one purpose ("control", or "data" with the flow), in hex. */
void auth_answer(const struct auth_key *key, const char *challenge, const char *purpose,
		 char out[AUTH_HEX_LEN + 1]);
/* Whether answer is the right one, compared in constant time. */
bool auth_check(const struct auth_key *key, const char *challenge, const char *purpose,
		const char *answer);

#endif
