/* serve's shared-secret authentication: HMAC-SHA256 (OpenSSL's libcrypto) over a challenge. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "util/ethtune.h"
#include "probe/auth.h"

const char *auth_key_file(void)
{
	const char *e = getenv("ETHTUNE_KEY_FILE");

	return et_opts.key_file ? et_opts.key_file : (e && *e ? e : NULL);
}

int auth_key_load(const char *path, struct auth_key *key, char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd, r;

	memset(key, 0, sizeof(*key));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "key file %s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen,
			 "key file %s: readable or writable by others (mode %03o); "
			 "chmod 600 it",
			 path, (unsigned int)(st.st_mode & 0777));
		close(fd);
		return -EPERM;
	}
	n = read(fd, key->k, sizeof(key->k));
	r = n < 0 ? -errno : 0;
	if (n == (ssize_t)sizeof(key->k)) {
		char more;

		if (read(fd, &more, 1) == 1)
			r = -EFBIG;
	}
	close(fd);
	if (r) {
		snprintf(err, errlen, "key file %s: %s", path,
			 r == -EFBIG ? "longer than 4096 bytes" : strerror(-r));
		memset(key, 0, sizeof(*key));
		return r;
	}
	if (n > 0 && key->k[n - 1] == '\n')
		n--;
	if (n < AUTH_KEY_MIN) {
		snprintf(err, errlen, "key file %s: %zd bytes, a key needs at least %d", path, n,
			 AUTH_KEY_MIN);
		memset(key, 0, sizeof(*key));
		return -EINVAL;
	}
	key->len = n;
	key->set = true;
	return 0;
}

static void hex(const unsigned char *b, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int auth_challenge(char out[AUTH_HEX_LEN + 1])
{
	unsigned char b[AUTH_HEX_LEN / 2];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += n;
	}
	hex(b, sizeof(b), out);
	return 0;
}

static void mac(const struct auth_key *key, const char *challenge, const char *purpose,
		unsigned char md[32])
{
	unsigned char msg[AUTH_HEX_LEN + 80];
	unsigned int mdlen = 32;
	int n;

	/* The purpose is part of the message: an answer for one use is no answer for another. */
	n = snprintf((char *)msg, sizeof(msg), "ethtune-serve %s %.64s", purpose, challenge);
	HMAC(EVP_sha256(), key->k, (int)key->len, msg, n < (int)sizeof(msg) ? n : 0, md, &mdlen);
}

void auth_answer(const struct auth_key *key, const char *challenge, const char *purpose,
		 char out[AUTH_HEX_LEN + 1])
{
	unsigned char md[32];

	mac(key, challenge, purpose, md);
	hex(md, sizeof(md), out);
}

bool auth_check(const struct auth_key *key, const char *challenge, const char *purpose,
		const char *answer)
{
	char want[AUTH_HEX_LEN + 1];

	if (!answer || strlen(answer) != AUTH_HEX_LEN)
		return false;
	auth_answer(key, challenge, purpose, want);
	return CRYPTO_memcmp(want, answer, AUTH_HEX_LEN) == 0;
}
