/* Probe control protocol: length-prefixed JSON messages, strictly validated, with timeouts. */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/ethtune.h"
#include "probe/auth.h"
#include "probe/probe.h"

enum fkind { F_INT, F_REAL, F_BOOL, F_STR, F_INTARR, F_INTOBJ };

struct field {
	const char *key;
	enum fkind kind;
	bool required;
	int64_t min, max;	    /* F_INT range; F_STR/F_INTARR/F_INTOBJ: max length */
	const char *const *choices; /* F_STR: allowed values, NULL-terminated */
};

/* A serve with a key sends a challenge in its hello; the client answers it in "auth". */
static const struct field f_hello[] = { { "version", F_STR, true, 0, 31 },
					{ "kernel", F_STR, false, 0, 127 },
					{ "hostname", F_STR, false, 0, 63 },
					{ "challenge", F_STR, false, 0, AUTH_HEX_LEN },
					{ NULL } };
static const struct field f_auth[] = { { "answer", F_STR, true, 0, AUTH_HEX_LEN }, { NULL } };
static const struct field f_error[] = { { "msg", F_STR, true, 0, 255 },
					{ "code", F_STR, false, 0, 31 },
					{ NULL } };
static const struct field f_setup[] = {
	{ "test", F_STR, true, 0, 15, probe_test_names },
	{ "flows", F_INT, true, 1, PROBE_MAX_FLOWS },
	{ "msg-size", F_INT, true, 1, PROBE_MAX_MSG },
	{ "sndbuf", F_INT, true, 0, PROBE_MAX_BUF },
	{ "rcvbuf", F_INT, true, 0, PROBE_MAX_BUF },
	{ "nodelay", F_BOOL, true },
	{ "cc", F_STR, true, 0, 15 },
	{ "cpu", F_INT, true, -1, 4095 },
	{ "duration-ms", F_INT, true, 1, PROBE_MAX_DURATION_S * 1000LL },
	{ "warmup-ms", F_INT, true, 0, PROBE_MAX_DURATION_S * 1000LL },
	{ "recv-size", F_INT, false, 0, PROBE_MAX_MSG },
	{ "send", F_STR, false, 0, 15, probe_send_names },
	{ "skip-rx-copy", F_BOOL, false },
	{ "rcvlowat", F_INT, false, 0, PROBE_MAX_MSG },
	{ "rx-poll-usecs", F_INT, false, 0, PROBE_MAX_RX_POLL },
	{ "no-sample", F_BOOL, false },
	{ NULL }
};
/* The cookie, chosen by serve, binds the data connections to this session. */
static const struct field f_setup_ok[] = { { "data-port", F_INT, true, 1, 65535 },
					   { "cookie", F_INT, true, 0, 0xffffffffLL },
					   { NULL } };
static const struct field f_none[] = { { NULL } };
static const struct field f_result[] = { { "elapsed-ns", F_INT, true, 0, INT64_MAX },
					 { "cpu-util", F_REAL, true },
					 { "proc-cpu", F_REAL, true },
					 { "ctl-cpu", F_REAL, false },
					 { "sndbuf-end", F_INT, true, 0, UINT32_MAX },
					 { "rcvbuf-end", F_INT, true, 0, UINT32_MAX },
					 { "rcvlowat-end", F_INT, false, 0, UINT32_MAX },
					 { "poll-cpu", F_REAL, false },
					 { "bytes", F_INTARR, true, 0, PROBE_MAX_FLOWS },
					 { "trans", F_INTARR, true, 0, PROBE_MAX_FLOWS },
					 { "tcp-info", F_INTOBJ, false, 0, 16 },
					 { "dev", F_STR, false, 0, 31 },
					 { "dev-stats", F_INTOBJ, false, 0,
					   19 + PROBE_MAX_ETHTOOL },
					 { "zerocopy", F_INTOBJ, false, 0, 3 },
					 { NULL } };

static const struct {
	const char *name;
	const struct field *fields;
} types[PM__COUNT] = {
	[PM_HELLO] = { "hello", f_hello }, [PM_ERROR] = { "error", f_error },
	[PM_SETUP] = { "setup", f_setup }, [PM_SETUP_OK] = { "setup-ok", f_setup_ok },
	[PM_READY] = { "ready", f_none },  [PM_START] = { "start", f_none },
	[PM_STOP] = { "stop", f_none },	   [PM_RESULT] = { "result", f_result },
	[PM_BYE] = { "bye", f_none },	   [PM_AUTH] = { "auth", f_auth },
};

const char *proto_type_name(enum proto_type t)
{
	return t < PM__COUNT ? types[t].name : "?";
}

int proto_version(void)
{
	const char *s = getenv("ETHTUNE_TEST_PROTO_VERSION");

	return s && *s ? atoi(s) : PROBE_PROTO_VERSION;
}

json_t *proto_msg(enum proto_type t)
{
	return json_pack("{s:i, s:s}", "v", proto_version(), "type", proto_type_name(t));
}

static int check_field(const struct field *f, json_t *v, char *err, size_t errlen)
{
	size_t i, n;
	const char *k;
	json_t *e;

	switch (f->kind) {
	case F_INT:
		if (!json_is_integer(v))
			goto type;
		if (json_integer_value(v) < f->min || json_integer_value(v) > f->max) {
			snprintf(err, errlen, "field '%s' = %lld out of range %lld..%lld", f->key,
				 (long long)json_integer_value(v), (long long)f->min,
				 (long long)f->max);
			return -EPROTO;
		}
		return 0;
	case F_REAL:
		if (!json_is_number(v))
			goto type;
		return 0;
	case F_BOOL:
		if (!json_is_boolean(v))
			goto type;
		return 0;
	case F_STR:
		if (!json_is_string(v))
			goto type;
		if (json_string_length(v) > (size_t)f->max ||
		    strlen(json_string_value(v)) != json_string_length(v)) {
			snprintf(err, errlen, "field '%s' too long or contains NUL", f->key);
			return -EPROTO;
		}
		if (f->choices) {
			for (i = 0; f->choices[i]; i++)
				if (!strcmp(f->choices[i], json_string_value(v)))
					return 0;
			snprintf(err, errlen, "field '%s' has unknown value '%.32s'", f->key,
				 json_string_value(v));
			return -EPROTO;
		}
		return 0;
	case F_INTARR:
		if (!json_is_array(v))
			goto type;
		n = json_array_size(v);
		if (n > (size_t)f->max) {
			snprintf(err, errlen, "field '%s' has %zu entries, limit %lld", f->key, n,
				 (long long)f->max);
			return -EPROTO;
		}
		json_array_foreach(v, i, e) if (!json_is_integer(e) || json_integer_value(e) < 0)
		{
			snprintf(err, errlen, "field '%s' entry %zu is not a count", f->key, i);
			return -EPROTO;
		}
		return 0;
	case F_INTOBJ:
		if (!json_is_object(v))
			goto type;
		if (json_object_size(v) > (size_t)f->max) {
			snprintf(err, errlen, "field '%s' has too many keys", f->key);
			return -EPROTO;
		}
		json_object_foreach(v, k, e) if (strlen(k) > 31 || !json_is_integer(e) ||
						 json_integer_value(e) < 0)
		{
			snprintf(err, errlen, "field '%s.%.31s' is not a count", f->key, k);
			return -EPROTO;
		}
		return 0;
	}
type:
	snprintf(err, errlen, "field '%s' has the wrong type", f->key);
	return -EPROTO;
}

int proto_parse(const char *buf, size_t len, json_t **out, char *err, size_t errlen)
{
	const struct field *fields, *f;
	json_error_t jerr;
	json_t *m, *v, *t;
	const char *k;
	int type, ret;

	*out = NULL;
	if (len > PROTO_MAX_MSG) {
		snprintf(err, errlen, "control message of %zu bytes exceeds the %d-byte limit", len,
			 PROTO_MAX_MSG);
		return -EMSGSIZE;
	}
	m = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m) {
		snprintf(err, errlen, "malformed control message: %s", jerr.text);
		return -EBADMSG;
	}
	if (!json_is_object(m)) {
		snprintf(err, errlen, "malformed control message: not a JSON object");
		goto bad;
	}
	t = json_object_get(m, "type");
	if (!json_is_string(t)) {
		snprintf(err, errlen, "malformed control message: no 'type'");
		goto bad;
	}
	for (type = 0; type < PM__COUNT; type++)
		if (!strcmp(types[type].name, json_string_value(t)))
			break;
	if (type == PM__COUNT) {
		snprintf(err, errlen, "unknown control message type '%.32s'", json_string_value(t));
		goto bad;
	}
	v = json_object_get(m, "v");
	if (!json_is_integer(v)) {
		snprintf(err, errlen, "malformed control message: no protocol version 'v'");
		goto bad;
	}
	/* Errors cross versions so that a mismatch can be explained by either end. */
	if (json_integer_value(v) != proto_version() && type != PM_ERROR) {
		snprintf(err, errlen, "protocol version %lld not supported (speaking %d)",
			 (long long)json_integer_value(v), proto_version());
		json_decref(m);
		return -EPROTONOSUPPORT;
	}
	fields = types[type].fields;
	json_object_foreach(m, k, v)
	{
		if (!strcmp(k, "v") || !strcmp(k, "type"))
			continue;
		for (f = fields; f->key; f++)
			if (!strcmp(f->key, k))
				break;
		if (!f->key) {
			snprintf(err, errlen, "unknown field '%.32s' in '%s' message", k,
				 types[type].name);
			goto bad;
		}
		ret = check_field(f, v, err, errlen);
		if (ret)
			goto bad;
	}
	for (f = fields; f->key; f++)
		if (f->required && !json_object_get(m, f->key)) {
			snprintf(err, errlen, "'%s' message lacks field '%s'", types[type].name,
				 f->key);
			goto bad;
		}
	*out = m;
	return type;
bad:
	json_decref(m);
	return -EPROTO;
}

/* Read exactly len bytes before deadline. 0, -ETIMEDOUT, -ECONNRESET or -errno. */
static int read_full(int fd, void *buf, size_t len, int64_t deadline)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - et_now_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)left);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		got += n;
	}
	return 0;
}

int proto_send(int fd, json_t *msg)
{
	char *body = json_dumps(msg, JSON_COMPACT);
	size_t len, off = 0;
	char *buf;
	uint32_t hdr;
	int ret = 0;

	json_decref(msg);
	if (!body)
		return -ENOMEM;
	len = strlen(body);
	if (len > PROTO_MAX_MSG) {
		free(body);
		return -EMSGSIZE;
	}
	buf = malloc(len + 4);
	if (!buf) {
		free(body);
		return -ENOMEM;
	}
	hdr = htonl((uint32_t)len);
	memcpy(buf, &hdr, 4);
	memcpy(buf + 4, body, len);
	free(body);
	while (off < len + 4) {
		ssize_t n = send(fd, buf + off, len + 4 - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = (errno == EPIPE) ? -ECONNRESET : -errno;
			break;
		}
		off += n;
	}
	free(buf);
	return ret;
}

/* A body's length from its header: 0, or -EPROTO (empty) or -EMSGSIZE, with one line in err. */
static int check_len(uint32_t len, char *err, size_t errlen)
{
	if (len == 0) {
		snprintf(err, errlen, "empty control message");
		return -EPROTO;
	}
	if (len > PROTO_MAX_MSG) {
		snprintf(err, errlen, "control message of %u bytes exceeds the %d-byte limit", len,
			 PROTO_MAX_MSG);
		return -EMSGSIZE;
	}
	return 0;
}

/* A whole body as proto_recv() returns it: the type with *out, or -errno with one line in err. */
static int take_msg(const char *buf, size_t len, enum proto_type want, json_t **out, char *err,
		    size_t errlen)
{
	int ret = proto_parse(buf, len, out, err, errlen);

	if (ret < 0)
		return ret;
	if (ret == PM_ERROR) {
		snprintf(err, errlen, "%s", json_string_value(json_object_get(*out, "msg")));
		json_decref(*out);
		*out = NULL;
		return -EREMOTEIO;
	}
	if (want != PM__COUNT && ret != (int)want) {
		snprintf(err, errlen, "expected a '%s' message, got '%s'", proto_type_name(want),
			 proto_type_name(ret));
		json_decref(*out);
		*out = NULL;
		return -EPROTO;
	}
	return ret;
}

int proto_recv(int fd, int timeout_ms, enum proto_type want, json_t **out, char *err, size_t errlen)
{
	int64_t deadline = et_now_ms() + timeout_ms;
	uint32_t hdr, len;
	char *buf;
	int ret;

	*out = NULL;
	ret = read_full(fd, &hdr, 4, deadline);
	if (ret == -ETIMEDOUT) {
		snprintf(err, errlen, "no '%s' message within %d ms",
			 want == PM__COUNT ? "control" : proto_type_name(want), timeout_ms);
		return ret;
	}
	if (ret == -ECONNRESET) {
		snprintf(err, errlen, "connection closed while waiting for '%s'",
			 want == PM__COUNT ? "control" : proto_type_name(want));
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "control connection: %s", strerror(-ret));
		return ret;
	}
	len = ntohl(hdr);
	ret = check_len(len, err, errlen);
	if (ret)
		return ret;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	ret = read_full(fd, buf, len, deadline);
	if (ret) {
		free(buf);
		snprintf(err, errlen, "control message truncated (%s)",
			 ret == -ETIMEDOUT ? "timed out" : "connection closed");
		return ret == -ETIMEDOUT ? ret : -ECONNRESET;
	}
	ret = take_msg(buf, len, want, out, err, errlen);
	free(buf);
	return ret;
}

int proto_rx_read(int fd, struct proto_rx *rx, char *err, size_t errlen)
{
	for (;;) {
		char *dst = rx->got < 4 ? (char *)rx->hdr + rx->got : rx->body + (rx->got - 4);
		size_t want = rx->got < 4 ? 4 - rx->got : rx->len - (rx->got - 4);
		ssize_t n;
		int r;

		if (!want)
			return 1;
		n = recv(fd, dst, want, MSG_DONTWAIT);
		if (n == 0) {
			snprintf(err, errlen, "%s",
				 rx->got ? "control message truncated (connection closed)"
					 : "connection closed before a control message");
			return -ECONNRESET;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			r = errno == EPIPE ? -ECONNRESET : -errno;
			snprintf(err, errlen, "control connection: %s", strerror(errno));
			return r;
		}
		rx->got += n;
		if (rx->got == 4) { /* only now is the body's size known */
			memcpy(&rx->len, rx->hdr, 4);
			rx->len = ntohl(rx->len);
			r = check_len(rx->len, err, errlen);
			if (r)
				return r;
			rx->body = malloc(rx->len);
			if (!rx->body) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
		}
	}
}

int proto_rx_take(struct proto_rx *rx, enum proto_type want, json_t **out, char *err, size_t errlen)
{
	int r = take_msg(rx->body, rx->len, want, out, err, errlen);

	proto_rx_free(rx);
	return r;
}

void proto_rx_free(struct proto_rx *rx)
{
	free(rx->body);
	memset(rx, 0, sizeof(*rx));
}

int proto_call(int fd, json_t *msg, int timeout_ms, enum proto_type want, json_t **out, char *err,
	       size_t errlen)
{
	int r = proto_send(fd, msg);

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (r)
		return r;
	return proto_recv(fd, timeout_ms, want, out, err, errlen);
}
