/* What a link down would delete: routes and IPv6 addresses told apart from what the kernel makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "nl/devobj.h"

static char buf[512];

static struct nlmsghdr *route(unsigned char proto, unsigned char type, unsigned char table, int oif)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	nlh->nlmsg_type = RTM_NEWROUTE;
	rtm->rtm_family = AF_INET;
	rtm->rtm_protocol = proto;
	rtm->rtm_type = type;
	rtm->rtm_table = table;
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	return nlh;
}

static struct nlmsghdr *addr6(int ifindex, unsigned char scope, uint32_t flags, bool ext)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

	nlh->nlmsg_type = RTM_NEWADDR;
	ifa->ifa_family = AF_INET6;
	ifa->ifa_index = (uint32_t)ifindex;
	ifa->ifa_scope = scope;
	ifa->ifa_flags = ext ? 0 : (unsigned char)flags;
	if (ext) /* flags above 8 bits come in IFA_FLAGS, which then replaces ifa_flags */
		mnl_attr_put_u32(nlh, IFA_FLAGS, flags);
	return nlh;
}

static void test_routes(void **state)
{
	struct link_lost l = { 0 };
	struct link_lost_ctx x = { .ifindex = 7, .l = &l };

	(void)state;
	/* a user's static route through the device, and one a daemon (proto 186, bgp) added */
	link_lost_route_cb(route(RTPROT_BOOT, RTN_UNICAST, RT_TABLE_MAIN, 7), &x);
	link_lost_route_cb(route(186, RTN_UNICAST, 100, 7), &x);
	assert_int_equal(l.routes, 2);
	/* made again on link up: the address's prefix route, RA's, local/broadcast ones */
	link_lost_route_cb(route(RTPROT_KERNEL, RTN_UNICAST, RT_TABLE_MAIN, 7), &x);
	link_lost_route_cb(route(RTPROT_RA, RTN_UNICAST, RT_TABLE_MAIN, 7), &x);
	link_lost_route_cb(route(RTPROT_BOOT, RTN_LOCAL, RT_TABLE_LOCAL, 7), &x);
	link_lost_route_cb(route(RTPROT_BOOT, RTN_BROADCAST, RT_TABLE_MAIN, 7), &x);
	/* another device's, and one without an output device (blackhole-like) */
	link_lost_route_cb(route(RTPROT_BOOT, RTN_UNICAST, RT_TABLE_MAIN, 8), &x);
	link_lost_route_cb(route(RTPROT_BOOT, RTN_UNICAST, RT_TABLE_MAIN, 0), &x);
	assert_int_equal(l.routes, 2);
	assert_int_equal(l.addrs6, 0);
}

static void test_addrs6(void **state)
{
	struct link_lost l = { 0 };
	struct link_lost_ctx x = { .ifindex = 7, .l = &l };

	(void)state;
	link_lost_addr_cb(addr6(7, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT, false), &x);
	link_lost_addr_cb(addr6(7, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE, true),
			  &x);
	assert_int_equal(l.addrs6, 2);
	/* SLAAC (not permanent), link-local, another device's */
	link_lost_addr_cb(addr6(7, RT_SCOPE_UNIVERSE, 0, false), &x);
	link_lost_addr_cb(addr6(7, RT_SCOPE_LINK, IFA_F_PERMANENT, false), &x);
	link_lost_addr_cb(addr6(8, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT, false), &x);
	/* IFA_FLAGS replaces ifa_flags: permanent in the byte, not in the attribute */
	{
		struct nlmsghdr *nlh = addr6(7, RT_SCOPE_UNIVERSE, 0, true);
		struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

		ifa->ifa_flags = IFA_F_PERMANENT;
		link_lost_addr_cb(nlh, &x);
	}
	assert_int_equal(l.addrs6, 2);
	assert_int_equal(l.routes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_addrs6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
