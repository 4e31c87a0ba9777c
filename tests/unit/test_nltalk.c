/* nl_talk: a signal while a request is on its way keeps the request and its answer together. */
// LDFLAGS: -Wl,--wrap=mnl_socket_sendto -Wl,--wrap=mnl_socket_recvfrom
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "nl/nl.h"

static int sends, recvs, send_eintr, recv_eintr, ack_error;
static uint32_t sent_seq;

ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl, const void *req, size_t siz)
{
	sends++;
	if (send_eintr) {
		send_eintr--;
		errno = EINTR;
		return -1;
	}
	sent_seq = ((const struct nlmsghdr *)req)->nlmsg_seq;
	return (ssize_t)siz;
}

/* The kernel's answer to the request: an ACK (error 0) or an error, after recv_eintr EINTRs. */
ssize_t __wrap_mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t siz)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	recvs++;
	if (recv_eintr) {
		recv_eintr--;
		errno = EINTR;
		return -1;
	}
	memset(buf, 0, siz);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = sent_seq;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = ack_error;
	e->msg.nlmsg_len = sizeof(e->msg);
	e->msg.nlmsg_seq = sent_seq;
	return nlh->nlmsg_len;
}

static int talk(void)
{
	static char buf[65536], req[256];
	struct nl_sock ns = { .buf = buf };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 42;
	return nl_talk(&ns, nlh, NULL, NULL);
}

static int setup(void **state)
{
	sends = recvs = send_eintr = recv_eintr = ack_error = 0;
	return 0;
}

/* The answer is read even when a signal interrupts the wait: a change the kernel made is never
 * reported as failed (the caller would drop its journal entry). */
static void test_recv_eintr(void **state)
{
	recv_eintr = 2;
	assert_int_equal(talk(), 0);
	assert_int_equal(sends, 1);
	assert_int_equal(recvs, 3);
}

static void test_recv_eintr_then_error(void **state)
{
	recv_eintr = 1;
	ack_error = -EBUSY;
	assert_int_equal(talk(), -EBUSY);
	assert_int_equal(sends, 1);
}

static void test_send_eintr(void **state)
{
	send_eintr = 1;
	assert_int_equal(talk(), 0);
	assert_int_equal(sends, 2);
	assert_int_equal(recvs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_recv_eintr, setup),
		cmocka_unit_test_setup(test_recv_eintr_then_error, setup),
		cmocka_unit_test_setup(test_send_eintr, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
