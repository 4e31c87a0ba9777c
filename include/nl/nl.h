/* Netlink transport over libmnl: rtnetlink and generic (ethtool) sockets with extended ACKs. */
#ifndef ETHTUNE_NL_H
#define ETHTUNE_NL_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#define NL_BUFSZ (MNL_SOCKET_BUFFER_SIZE * 4)

struct nl_sock {
	struct mnl_socket *sk;
	uint32_t portid;
	uint32_t seq;
	uint16_t family;     /* generic netlink family id; 0 on rtnetlink */
	uint8_t version;     /* generic netlink family version */
	char extack[256];    /* kernel's message for the last error, "" if none */
	uint32_t extack_off; /* offending attribute offset, 0 if none */
	char *buf;
};

int nl_open_rtnl(struct nl_sock *ns);
/* Generic netlink socket bound to the named family (e.g. "ethtool"). */
int nl_open_genl(struct nl_sock *ns, const char *family);
void nl_close(struct nl_sock *ns);

/* Start a request in ns->buf: rtnetlink type or generic netlink cmd, NLM_F_REQUEST|flags. */
struct nlmsghdr *nl_msg_start(struct nl_sock *ns, uint16_t type_or_cmd, uint16_t flags);

/* Send and run cb over every reply until ACK or DONE; 0 or -errno (extack kept in ns). */
int nl_talk(struct nl_sock *ns, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/* Parse one received buffer; MNL_CB_STOP at ACK/DONE, MNL_CB_OK for more, -errno on error.
 * Exposed so that captured reply fixtures replay through the very same code. */
int nl_parse_buf(struct nl_sock *ns, const void *buf, size_t len, uint32_t seq, mnl_cb_t cb,
		 void *data);

/* "Invalid argument (kernel: <extack>)" style text for err on ns. */
const char *nl_strerror(const struct nl_sock *ns, int err);

#endif
