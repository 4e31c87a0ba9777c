/* validate counters: the device's TX counters move forward and agree with what TCP sent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "probe/probe.h"

/* counters: the device's TX bytes against what TCP sent (tcpi_bytes_sent) carry the headers of
 * each segment on top: Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12 bytes per MSS. */
#define VAL_HDR_BYTES 66
/* counters: the two are read at slightly different instants (a 2% slack is 4 ms of the window
 * at any rate, ten times the wake-up floor of an emulated guest). The test-only environment
 * variable ETHTUNE_TEST_COUNTERS_SLACK replaces it (a negative value makes the bound
 * impossible, so that tests/ns/validate.sh can see the check fail). */
#define VAL_COUNTERS_SLACK 0.02

static int check_counters(struct val_ctx *c, struct val_res *r)
{
	const char *env = getenv("ETHTUNE_TEST_COUNTERS_SLACK");
	double slack = env ? strtod(env, NULL) : VAL_COUNTERS_SLACK, ratio, hdr, mss;
	unsigned int i, back = 0;
	uint64_t dev, sent;
	int ret;

	ret = val_load(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	val_load_loaded(c, r, false); /* counts agree at any rate: it only tells */
	for (i = 1; i < c->nsamp; i++)
		if (c->s_bytes[i] < c->s_bytes[i - 1] || c->s_pkts[i] < c->s_pkts[i - 1])
			back++;
	val_measured(r, "samples", c->nsamp);
	val_measured(r, "went-backwards", back);
	val_bound(r, "went-backwards", 0);
	if (c->nsamp < 2) {
		val_set(r, VR_SKIP, "the device's TX counters could not be read during the flow");
		return 0;
	}
	if (back) {
		val_set(r, VR_FAIL, "tx_bytes or tx_packets went backwards %u times in %u samples",
			back, c->nsamp);
		return 0;
	}
	if (!c->lr->dev.valid || !c->lr->sender_ti.bytes_sent) {
		val_set(r, VR_SKIP, "the probe read no device counters or tcpi_bytes_sent");
		return 0;
	}
	dev = c->lr->dev.tx_bytes;
	sent = c->lr->sender_ti.bytes_sent;
	mss = c->mtu > 52 ? c->mtu - 52 : 1448;
	hdr = VAL_HDR_BYTES / mss;
	ratio = (double)dev / (double)sent;
	val_measured(r, "device-tx-bytes", (double)dev);
	val_measured(r, "tcp-bytes-sent", (double)sent);
	val_measured(r, "ratio", ratio);
	val_bound(r, "min-ratio", 1 - slack);
	val_bound(r, "max-ratio", 1 + hdr + slack);
	val_diag(r,
		 "one flow of %.0f s: tx_bytes against tcpi_bytes_sent, headers %.1f%% at MTU %u, "
		 "slack %.1f%%",
		 c->vo->load_s, 100 * hdr, c->mtu, 100 * slack);
	if (ratio < 1 - slack || ratio > 1 + hdr + slack)
		val_set(r, VR_FAIL,
			"the device counted %llu TX bytes for %llu bytes TCP sent (ratio %.4f, "
			"bound %.4f-%.4f)",
			(unsigned long long)dev, (unsigned long long)sent, ratio, 1 - slack,
			1 + hdr + slack);
	else
		val_set(r, VR_PASS,
			"monotonic over %u samples; %llu TX bytes for %llu sent by TCP "
			"(ratio %.4f)",
			c->nsamp, (unsigned long long)dev, (unsigned long long)sent, ratio);
	if (c->lr->dev.have_qbytes && dev) {
		/* the queues' own counts (qstats) against the device's */
		double qr = (double)c->lr->dev.q_bytes / (double)dev;

		val_measured(r, "queue-ratio", qr);
		val_bound(r, "min-queue-ratio", 1 - slack);
		val_bound(r, "max-queue-ratio", 1 + slack);
		val_diag(r, "the TX queues (qstats tx-bytes) counted %llu bytes",
			 (unsigned long long)c->lr->dev.q_bytes);
		if (r->res == VR_PASS && (qr < 1 - slack || qr > 1 + slack))
			val_set(r, VR_FAIL,
				"the TX queues counted %llu bytes for the device's %llu (ratio "
				"%.4f, bound %.4f-%.4f)",
				(unsigned long long)c->lr->dev.q_bytes, (unsigned long long)dev, qr,
				1 - slack, 1 + slack);
	}
	if (c->lr->dev.have_qstats) {
		/* each queue may have been stopped at the window's start or its end: one wake or
		 * one stop more */
		int64_t d = (int64_t)c->lr->dev.tx_stop - (int64_t)c->lr->dev.tx_wake;
		unsigned int nq = c->n_txq ? c->n_txq : 1;

		val_measured(r, "tx-stop", (double)c->lr->dev.tx_stop);
		val_measured(r, "tx-wake", (double)c->lr->dev.tx_wake);
		val_bound(r, "max-stop-wake-difference", nq);
		if (r->res == VR_PASS && (d < -(int64_t)nq || d > (int64_t)nq))
			val_set(r, VR_FAIL,
				"the TX queues were stopped %llu times and woken %llu times in the "
				"flow (they may differ by one per queue: %u)",
				(unsigned long long)c->lr->dev.tx_stop,
				(unsigned long long)c->lr->dev.tx_wake, nq);
	}
	if (c->lr->remote_dev.valid) {
		/* The peer's RX against what TCP sent, as our TX is: the two ends may count
		 * differently, each a wire frame's headers or one super-packet's: qemu's e1000e
		 * counts a TSO send once (our TX / TCP 1.001) and its peer the frames (RX /
		 * TX 1.027 on 6.1), which a bound on RX / TX alone called a fault */
		const struct probe_devstats *pd = &c->lr->remote_dev;
		double pr = (double)pd->rx_bytes / (double)sent;

		val_measured(r, "peer-rx-bytes", (double)pd->rx_bytes);
		val_measured(r, "peer-ratio", pr);
		val_bound(r, "min-peer-ratio", 1 - slack);
		val_bound(r, "max-peer-ratio", 1 + hdr + slack);
		val_diag(r,
			 "the peer's %s received %llu bytes (its RX against TCP's bytes sent %.4f, "
			 "against our TX %.4f)",
			 pd->dev, (unsigned long long)pd->rx_bytes, pr,
			 (double)pd->rx_bytes / (double)dev);
		if (r->res == VR_PASS && (pr < 1 - slack || pr > 1 + hdr + slack))
			val_set(r, VR_FAIL,
				"the peer's %s counted %llu RX bytes for %llu sent by TCP "
				"(ratio %.4f, bound %.4f-%.4f)",
				pd->dev, (unsigned long long)pd->rx_bytes, (unsigned long long)sent,
				pr, 1 - slack, 1 + hdr + slack);
	}
	return 0;
}

const struct val_entry val_check_counters = {
	.name = "counters",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_LOAD | VAL_NEEDS_NETDEV,
	.run = check_counters,
};
