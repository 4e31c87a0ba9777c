/* Netlink transport: libmnl sockets, extended ACK handling, and reply replay for fixtures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "util/ethtune.h"
#include "nl/nl.h"

static int nl_open_proto(struct nl_sock *ns, int proto)
{
	int one = 1, e;

	memset(ns, 0, sizeof(*ns));
	ns->buf = malloc(NL_BUFSZ);
	if (!ns->buf)
		return -ENOMEM;
	ns->sk = mnl_socket_open(proto);
	if (!ns->sk)
		goto err;
	/* Always ask for the kernel's explanation of an error, and a short ACK. */
	mnl_socket_setsockopt(ns->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(ns->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(ns->sk, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err;
	ns->portid = mnl_socket_get_portid(ns->sk);
	ns->seq = (uint32_t)time(NULL);
	return 0;
err:
	e = -errno;
	nl_close(ns);
	return e ? e : -EIO;
}

int nl_open_rtnl(struct nl_sock *ns)
{
	return nl_open_proto(ns, NETLINK_ROUTE);
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_sock *ns = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			ns->family = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			ns->version = (uint8_t)mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, data);
	return MNL_CB_OK;
}

int nl_open_genl(struct nl_sock *ns, const char *family)
{
	struct nlmsghdr *nlh;
	int ret;

	ret = nl_open_proto(ns, NETLINK_GENERIC);
	if (ret)
		return ret;
	ns->family = GENL_ID_CTRL;
	ns->version = 1;
	nlh = nl_msg_start(ns, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	ns->family = 0;
	ret = nl_talk(ns, nlh, family_cb, ns);
	if (!ret && !ns->family)
		ret = -EPROTONOSUPPORT;
	if (ret) {
		nl_close(ns);
		return ret == -ENOENT ? -EPROTONOSUPPORT : ret;
	}
	return 0;
}

void nl_close(struct nl_sock *ns)
{
	if (ns->sk)
		mnl_socket_close(ns->sk);
	free(ns->buf);
	ns->sk = NULL;
	ns->buf = NULL;
}

struct nlmsghdr *nl_msg_start(struct nl_sock *ns, uint16_t type_or_cmd, uint16_t flags)
{
	struct nlmsghdr *nlh;

	/* Zeroed: libmnl before 1.0.5 leaves attribute padding as it finds it, and no byte of a
	 * request may be uninitialised (valgrind; the kernel ignores padding, but it is sent). */
	memset(ns->buf, 0, NL_BUFSZ);
	nlh = mnl_nlmsg_put_header(ns->buf);

	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++ns->seq;
	if (ns->family) {
		struct genlmsghdr *g;

		nlh->nlmsg_type = ns->family;
		g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		g->cmd = (uint8_t)type_or_cmd;
		g->version = ns->version;
	} else {
		nlh->nlmsg_type = type_or_cmd;
	}
	return nlh;
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_sock *ns = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(ns->extack, sizeof(ns->extack), "%s", mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			ns->extack_off = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

/* Error or ACK: keep the extack text; 0 means success. */
static int nl_error(struct nl_sock *ns, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int hlen = sizeof(*err);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
		return -EBADMSG;
	/* Without NLM_F_CAPPED the original request follows the header. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (err->msg.nlmsg_len < sizeof(struct nlmsghdr) ||
		    err->msg.nlmsg_len > nlh->nlmsg_len)
			return err->error ? err->error : -EBADMSG;
		hlen += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && nlh->nlmsg_len > mnl_nlmsg_size(hlen))
		mnl_attr_parse(nlh, hlen, extack_attr_cb, ns);
	return err->error;
}

static int nl_done_error(struct nl_sock *ns, const struct nlmsghdr *nlh)
{
	int e;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(int)))
		return 0;
	memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
	if (e > 0)
		e = -e;
	if (e && (nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    nlh->nlmsg_len > mnl_nlmsg_size(sizeof(int)))
		mnl_attr_parse(nlh, sizeof(int), extack_attr_cb, ns);
	return e;
}

int nl_parse_buf(struct nl_sock *ns, const void *buf, size_t len, uint32_t seq, mnl_cb_t cb,
		 void *data)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	/* mnl_nlmsg_ok() compares the length as an int: one of 2 GiB or more would pass it and
	 * walk backwards forever (found by tests/fuzz/fuzz_netlink.c) */
	while (mnl_nlmsg_ok(nlh, rem) && nlh->nlmsg_len <= (uint32_t)rem) {
		if (seq && nlh->nlmsg_seq && nlh->nlmsg_seq != seq)
			return -EPROTO;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_ERROR: {
			int e = nl_error(ns, nlh);

			return e ? e : MNL_CB_STOP;
		}
		case NLMSG_DONE: {
			/* A dump the kernel cannot make ends in DONE carrying the error (a netdev
			 * operation the device lacks: EOPNOTSUPP), and its extack after it. */
			int e = nl_done_error(ns, nlh);

			return e ? e : MNL_CB_STOP;
		}
		case NLMSG_OVERRUN:
			return -ENOSPC;
		default:
			if (cb) {
				int r = cb(nlh, data);

				if (r == MNL_CB_ERROR)
					return errno ? -errno : -EINVAL;
				if (r == MNL_CB_STOP)
					return MNL_CB_STOP;
			}
		}
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	return MNL_CB_OK;
}

/* Replies can be saved for test fixtures: ETHTUNE_NL_CAPTURE=FILE appends every buffer. */
static void capture(const void *buf, size_t len)
{
	const char *path = getenv("ETHTUNE_NL_CAPTURE");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ab");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

int nl_talk(struct nl_sock *ns, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	uint32_t seq = nlh->nlmsg_seq;
	int ret;

	ns->extack[0] = '\0';
	ns->extack_off = 0;
	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		nlh->nlmsg_flags |= NLM_F_ACK;
	while (mnl_socket_sendto(ns->sk, nlh, nlh->nlmsg_len) < 0)
		if (errno != EINTR)
			return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(ns->sk, ns->buf, NL_BUFSZ);

		/* A stop signal must not part a request from its answer: the kernel may have made
		 * the change, and the caller journals by the answer (the flag stays pending). */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		capture(ns->buf, (size_t)n);
		ret = nl_parse_buf(ns, ns->buf, (size_t)n, seq, cb, data);
		if (ret < 0)
			return ret;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

const char *nl_strerror(const struct nl_sock *ns, int err)
{
	static char msg[400];

	if (err < 0)
		err = -err;
	if (ns && ns->extack[0])
		snprintf(msg, sizeof(msg), "%s (kernel: %s)", strerror(err), ns->extack);
	else
		snprintf(msg, sizeof(msg), "%s", strerror(err));
	return msg;
}
