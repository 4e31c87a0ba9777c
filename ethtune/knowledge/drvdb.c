/* Per-driver TX-completion knowledge compiled in; each fact names its source (file or commit). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ethtool_netlink.h>

#include "nl/devobj.h"
#include "knowledge/drvdb.h"
#include "out/json_print.h"

#define N(a)	  (sizeof(a) / sizeof((a)[0]))
#define PARAMS(a) a, N(a)
#define PATHS(a)  a, N(a)

/* ---- e1000e ---- */
static const struct drv_param e1000e_params[] = {
	{ "rx-usecs",
	  "interrupt throttle (ITR) of the shared/TX vector too: the TX completion delay", "us",
	  "0 off, 1 dynamic, 3 dynamic conservative, 4 simplified, 10-10000 fixed (256 ns regs)",
	  "3 (dynamic conservative; module param InterruptThrottleRate)",
	  "drivers/net/ethernet/intel/e1000e/ethtool.c e1000_set_coalesce, param.c", 10, 250,
	  true },
	{ "tx-usecs",
	  "not supported (supported_coalesce_params = RX_USECS only): TX follows rx-usecs", NULL,
	  NULL, NULL, "drivers/net/ethernet/intel/e1000e/ethtool.c" },
	{ "module:TxIntDelay", "TIDV: TX descriptor write-back/interrupt delay", "1.024 us",
	  "0-65535", "8 (~8 us)", "drivers/net/ethernet/intel/e1000e/param.c DEFAULT_TIDV" },
	{ "module:TxAbsIntDelay", "TADV: absolute cap on the TX interrupt delay", "1.024 us",
	  "0-65535", "32 (~33 us)", "drivers/net/ethernet/intel/e1000e/param.c DEFAULT_TADV" },
};
static const struct drv_pathology e1000e_paths[] = {
	{ "ethtool -C tx-usecs is rejected; the TX completion delay is the ITR set by rx-usecs "
	  "plus "
	  "TIDV/TADV",
	  "tune rx-usecs (0, or a fixed 10-50 us) and measure; TxIntDelay=0 at module load",
	  "drivers/net/ethernet/intel/e1000e/ethtool.c, param.c" },
	{ "dynamic ITR classifies a bulk flow as bulk_latency and drops to ~4000 interrupts/s "
	  "(~250 us between TX cleanups); below gigabit the rate is fixed at 4000",
	  "fixed rx-usecs for single-flow throughput, or raise tcp_limit_output_bytes",
	  "drivers/net/ethernet/intel/e1000e/netdev.c e1000_set_itr" },
};

/* ---- virtio_net ---- */
static const struct drv_param virtio_params[] = {
	{ "tx-frames",
	  "without VIRTIO_NET_F_NOTF_COAL: 0 = napi_tx off (orphan mode), 1 = napi_tx on; "
	  "needs the interface down",
	  "0|1", NULL, "1 (napi_tx on)", "0c465be183c7 virtio_net: ethtool tx napi configuration" },
	{ "tx-usecs", "with VIRTIO_NET_F_NOTF_COAL (v6.2+): device TX notification coalescing time",
	  "us", "device-defined", "0", "drivers/net/virtio_net.c virtnet_set_coalesce" },
	{ "module:napi_tx", "TX completions by interrupt + NAPI instead of lazily at the next xmit",
	  "bool", NULL, "true since v5.3", "31c03aef9bc2 virtio_net: enable napi_tx by default" },
};
static const struct drv_pathology virtio_paths[] = {
	{ "orphan mode (napi_tx off, tx-frames 0 on devices without NOTF_COAL): skbs are orphaned "
	  "and freed at the next xmit; TSQ and BQL see nothing",
	  "ethtool -C DEV tx-frames 1 (interface down) or napi_tx=1",
	  "0c465be183c7; drivers/net/virtio_net.c start_xmit" },
	{ "with NOTF_COAL the default tx-frames is 0 while napi_tx is on; a coalesce request "
	  "carrying "
	  "tx-frames 0 (e.g. only rx-usecs) could toggle napi_tx off on 2023 kernels",
	  "check napi_tx after any ethtool -C on virtio_net; set tx-frames explicitly",
	  "netdev 2023 'virtio-net: fix the napi_tx toggling' thread (Heng Qi)" },
	{ "no BQL before v6.11 (c8bd1f7f3e61 added it, napi_tx mode only): the queue can fill with "
	  "bytes TSQ does not see once several flows share it",
	  "a v6.11+ guest kernel; fq/fq_codel on the guest device", "c8bd1f7f3e61" },
	{ "completion time is set by the host backend (vhost-net, zero-copy waits for the host "
	  "NIC)",
	  "measure D with txlat; host-side tuning", "drivers/vhost/net.c" },
	{ "tx-stop exceeds tx-wake (qstats) by one per TX ring resize made while xmit had the "
	  "queue stopped: virtnet_tx_pause counts a stop on a queue already stopped, "
	  "virtnet_tx_resume one wake (7.2.13; 'virtio_net: enhance wake/stop tx queue statistics "
	  "accounting', Liming Wu, 2025-11, counts the pause unconditionally); the queue runs on, "
	  "BQL inflight drains to 0",
	  "none for traffic; read tx-stop - tx-wake across a ring resize as off by one",
	  "drivers/net/virtio_net.c virtnet_tx_pause/virtnet_tx_resume (7.2.13+deb14 module, "
	  "disassembled); validate reconfig in the lab: tx-stop 71, tx-wake 70" },
};

/* ---- mlx5_core ---- */
static const struct drv_param mlx5_params[] = {
	{ "tx-usecs", "TX CQ moderation period", "us", "1 us, max 4095 (cq_period)",
	  "16 (16 in CQE mode)",
	  "en.h MLX5E_PARAMS_DEFAULT_TX_CQ_MODERATION_USEC 0x10; include/linux/mlx5/cq.h" },
	{ "tx-frames", "TX CQ moderation count (CQEs)", "frames", "max 65535", "32",
	  "MLX5E_PARAMS_DEFAULT_TX_CQ_MODERATION_PKTS 0x20" },
	{ "cqe-mode-tx",
	  "off = EQE mode (timer from the last interrupt), on = CQE mode (timer "
	  "restarts on every CQE); same as priv flag tx_cqe_moder",
	  "on|off", NULL, "off",
	  "48bfc39791b8 net/mlx5e: Set EQE based as default TX interrupt moderation mode" },
	{ "adaptive-tx", "TX DIM: moderation profile chosen at run time", "on|off", NULL,
	  "on where the device supports CQ moderation", "en_main.c mlx5e_build_nic_params" },
};
static const struct drv_pathology mlx5_paths[] = {
	{ "CQE-mode TX moderation (0088cbbc4b66) restarts the timer with every completion; with "
	  "64 KB TSO skbs a TSQ-limited flow waits a full period per window and stalls",
	  "cqe-mode-tx off / priv flag tx_cqe_moder off (EQE mode, the default since 48bfc39791b8)",
	  "48bfc39791b8; 9908aa292971 (CQE based moderation)" },
	{ "toggling adaptive-tx resets tx-usecs/tx-frames to the mode's defaults",
	  "set adaptive-tx first, then tx-usecs/tx-frames (profiles apply coalesce in one request)",
	  "ebeaf084ad5c net/mlx5e: Properly set default values when disabling adaptive "
	  "moderation" },
};

/* ---- mlx4_en ---- */
static const struct drv_param mlx4_params[] = {
	{ "tx-usecs", "TX CQ moderation period", "us", "max 65535", "16 (was 128)",
	  "ecfd2ce1a9d5 mlx4: change TX coalescing defaults; mlx4_en.h MLX4_EN_TX_COAL_TIME" },
	{ "tx-frames", "TX CQ moderation count", "frames", "max 65535", "16",
	  "mlx4_en.h MLX4_EN_TX_COAL_PKTS" },
};
static const struct drv_pathology mlx4_paths[] = {
	{ "128 us TX coalescing capped one TCP flow to ~4 Gbit/s at 10G once skb_orphan() was "
	  "removed from xmit (TSQ, 128 KiB limit)",
	  "tx-usecs 16 (default since ecfd2ce1a9d5); ethtune model reproduces it",
	  "ecfd2ce1a9d5; seeds/002 (Eric Dumazet, 2012)" },
};

/* ---- ice / i40e ---- */
static const struct drv_param ice_params[] = {
	{ "tx-usecs", "TX ITR: minimum gap between TX interrupts", "us",
	  "2 us (odd values rounded), max 8160", "50 (~20k interrupts/s)",
	  "drivers/net/ethernet/intel/ice/ice_txrx.h ICE_DFLT_TX_ITR, ICE_ITR_GRAN_US" },
	{ "adaptive-tx", "dynamic ITR (DIM) picks the TX interval", "on|off", NULL, "on",
	  "ice_txrx.h ITR_DYNAMIC, ice_txrx.c" },
	{ "tx-usecs-high", "not for TX: rx-usecs-high is the interrupt rate limit (INTRL)", "us",
	  "4 us", "0", "ice_ethtool.c" },
};
static const struct drv_param i40e_params[] = {
	{ "tx-usecs", "TX ITR: minimum gap between TX interrupts", "us",
	  "2 us (odd values rounded)", "50 (I40E_ITR_20K)",
	  "drivers/net/ethernet/intel/i40e/i40e_txrx.h" },
	{ "adaptive-tx", "dynamic ITR adapts the TX interval to load", "on|off", NULL, "on",
	  "i40e_txrx.h I40E_ITR_DYNAMIC, i40e_txrx.c i40e_update_itr" },
};
static const struct drv_pathology intel_itr_paths[] = {
	{ "adaptive TX ITR moves toward long intervals under bulk load; a single TSQ-limited flow "
	  "sees the completion delay grow with the interval",
	  "adaptive-tx off with tx-usecs 8-32 for single-flow throughput; measure with sweep",
	  "ice_txrx.c / i40e_txrx.c ITR update" },
};

/* ---- ixgbe ---- */
static const struct drv_param ixgbe_params[] = {
	{ "rx-usecs", "EITR of the vector; also governs TX when RX and TX share a vector (default)",
	  "us", "1 = dynamic, 0 = off, else fixed; EITR 2 us units", "1 (dynamic)",
	  "drivers/net/ethernet/intel/ixgbe/ixgbe_ethtool.c ixgbe_set_coalesce" },
	{ "tx-usecs", "only for TX-only vectors; mixed RX/TX vectors use the rx-usecs ITR", "us",
	  "stored as usecs << 2, EITR masked to 2 us", "1 (dynamic, ~12k interrupts/s)",
	  "ixgbe_ethtool.c ixgbe_set_coalesce, ixgbe_main.c ixgbe_write_eitr" },
	{ "tx-frames-irq", "TX clean work limit per NAPI poll, not a moderation count", "frames",
	  NULL, "256", "ixgbe.h IXGBE_DEFAULT_TX_WORK" },
};
static const struct drv_pathology ixgbe_paths[] = {
	{ "with paired (combined) queues the RX ITR decides TX completion; tx-usecs only acts on "
	  "TX-only vectors",
	  "set rx-usecs, or separate rx/tx channels (ethtool -L rx N tx N) to get tx-usecs",
	  "ixgbe_ethtool.c" },
};

/* ---- bnxt_en ---- */
static const struct drv_param bnxt_params[] = {
	{ "tx-usecs", "TX completion ring timer", "us", "converted to hardware ticks", "28",
	  "drivers/net/ethernet/broadcom/bnxt/bnxt.c bnxt_init_dflt_coal; dfb5b894f87c" },
	{ "tx-frames", "TX completion records per interrupt", "frames", NULL, "30",
	  "bnxt.c bnxt_init_dflt_coal (coal_bufs 30, bufs_per_record 1)" },
	{ "tx-usecs-irq", "timer while an interrupt is pending", "us", NULL, "2", "bnxt.c" },
	{ "tx-frames-irq", "count while an interrupt is pending", "frames", NULL, "2", "bnxt.c" },
};
static const struct drv_pathology bnxt_paths[] = {
	{ "one TSQ-limited flow with 64 KB skbs never reaches 30 completion records, so the 28 us "
	  "timer decides; with small TSQ limits at 25G+ that caps the flow",
	  "lower tx-usecs (8-16) or raise tcp_limit_output_bytes; adaptive moderation is RX-only",
	  "bnxt.c bnxt_init_dflt_coal" },
};

/* ---- ena ---- */
static const struct drv_param ena_params[] = {
	{ "tx-usecs", "TX interrupt moderation interval (if the device supports moderation)", "us",
	  "device intr_delay_resolution (default 1 us)", "64 (was 196)",
	  "drivers/net/ethernet/amazon/ena/ena_com.h ENA_INTR_INITIAL_TX_INTERVAL_USECS" },
	{ "adaptive-rx", "DIM for RX only; TX stays at tx-usecs", "on|off", NULL,
	  "device-dependent", "ena_ethtool.c" },
};
static const struct drv_pathology ena_paths[] = {
	{ "fixed 64 us TX moderation and a per-instance bandwidth cap: single flows can be TSQ "
	  "limited at small tcp_limit_output_bytes",
	  "tx-usecs 0-16 when single-flow throughput matters", "ena_com.h" },
};

/* ---- gve ---- */
static const struct drv_param gve_params[] = {
	{ "tx-usecs", "DQO queue format only: TX interrupt rate limit", "us", "2 us, max 8190",
	  "50", "drivers/net/ethernet/google/gve/gve_dqo.h GVE_TX_IRQ_RATELIMIT_US_DQO" },
};
static const struct drv_pathology gve_paths[] = {
	{ "GQI queue format has no TX coalescing parameters (ethtool -C unsupported); completions "
	  "follow the NAPI interrupt",
	  "use DQO format where the platform offers it",
	  "drivers/net/ethernet/google/gve/gve_ethtool.c" },
};

/* ---- qeth ---- */
static const char *const qeth_aliases[] = { "qeth_l2", "qeth_l3", NULL };
static const struct drv_param qeth_params[] = {
	{ "tx-usecs", "IQD (HiperSockets): TX completion IRQ coalescing time", "us", NULL, "25",
	  "drivers/s390/net/qeth_core.h QETH_TX_COALESCE_USECS" },
	{ "tx-frames", "IQD: buffers per TX completion IRQ", "frames", NULL, "1",
	  "qeth_core.h QETH_TX_MAX_COALESCED_FRAMES" },
};
static const struct drv_pathology qeth_paths[] = {
	{ "HiperSockets before TX IRQ coalescing: TX buffers completed only by a later transmit or "
	  "a scan; with TSQ (v3.6) one flow collapses to a few Mbit/s at MTU > 15000 while two "
	  "flows "
	  "recover",
	  "raise tcp_limit_output_bytes (640000 fixed it) or a kernel with qeth TX "
	  "completion IRQs (tx-usecs 25)",
	  "seeds/002 (HiperSockets report, 2012); 46d3ceabd8d9" },
	{ "rescan timer QETH_TX_TIMER_USECS 500 us is the fallback completion path",
	  "keep tx-usecs "
	  "small",
	  "drivers/s390/net/qeth_core_main.c qeth_tx_completion_timer" },
};

/* ---- stmmac ---- */
static const char *const stmmac_aliases[] = { "st_gmac", "st_mac100", "st_xgmac", NULL };
static const struct drv_param stmmac_params[] = {
	{ "tx-usecs", "TX coalesce timer (hrtimer) that cleans the TX ring when no IRQ came", "us",
	  "max 100000", "1000 (40000 in early versions; some trees 5000)",
	  "drivers/net/ethernet/stmicro/stmmac/common.h STMMAC_COAL_TX_TIMER" },
	{ "tx-frames", "descriptors between TX completion interrupts (IC bit)", "frames", "max 256",
	  "25 (64 in early versions)", "common.h STMMAC_TX_FRAMES" },
};
static const struct drv_pathology stmmac_paths[] = {
	{ "a TSQ window shorter than tx-frames descriptors gets no interrupt; the flow waits for "
	  "the 1 ms TX timer: about window / 1 ms (128 KiB -> ~1 Gbit/s ceiling, less at 4 KiB)",
	  "tx-frames 1-8 or tx-usecs 50-200; measure with sweep coalesce",
	  "stmmac_main.c stmmac_tx_timer_arm, stmmac_xmit tx_count_frames" },
};

/* ---- txsim (this project's reference driver) ---- */
static const struct drv_param txsim_params[] = {
	{ "tx-usecs", "completion timer after wire serialization", "us", NULL, NULL,
	  "drivers/txsim/ (this project)" },
	{ "tx-frames", "completions per interrupt", "frames", NULL, NULL, "drivers/txsim/" },
	{ "cqe-mode-tx", "restart the timer on every completion (mlx5 CQE mode)", "on|off", NULL,
	  NULL, "drivers/txsim/" },
	{ "priv-flag:orphan-at-xmit", "skb_orphan() in xmit: TSQ/BQL blind", "on|off", NULL, "off",
	  "drivers/txsim/" },
	{ "priv-flag:complete-on-next-xmit",
	  "reap completions only on the next xmit (qeth "
	  "pattern)",
	  "on|off", NULL, "off", "drivers/txsim/" },
	{ "priv-flag:never-wake",
	  "completions never restart a stopped queue; only the TX watchdog (5 s) does", "on|off",
	  NULL, "off", "drivers/txsim/" },
};
static const struct drv_pathology txsim_paths[] = {
	{ "every pathology above on demand: delayed, orphaned, next-xmit completion, a queue "
	  "that never wakes",
	  "ground truth for diagnose/tune tests", "drivers/txsim/, tests/lab/" },
};

/* ---- veth ---- */
static const struct drv_pathology veth_paths[] = {
	{ "no TX completion: the skb goes to the peer in xmit and is freed (uncharged) when the "
	  "receiver consumes it, so the 'completion delay' is the receiver's latency",
	  "nothing to tune; use as a prompt/software baseline", "drivers/net/veth.c veth_xmit" },
};

static const struct drv_info drvdb[] = {
	{ "e1000e", NULL,
	  "TX ring cleaned from the interrupt; its rate is the ITR set by rx-usecs, TX write-back "
	  "further delayed by TIDV/TADV",
	  DRV_COMPL_SHARED, true, "ITR modes via rx-usecs 1/3/4", PARAMS(e1000e_params),
	  PATHS(e1000e_paths), "e1000e", "drivers/e1000e/README.md" },
	{ "virtio_net", NULL,
	  "napi_tx (default): TX virtqueue interrupt + NAPI frees skbs; orphan mode frees them "
	  "lazily at the next xmit",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(virtio_params), PATHS(virtio_paths), "virtio_net",
	  "drivers/virtio_net/README.md" },
	{ "mlx5_core", NULL,
	  "TX CQ moderation (period/count) in EQE or CQE mode, optionally TX DIM", DRV_COMPL_IRQ,
	  true, "TX DIM (adaptive-tx)", PARAMS(mlx5_params), PATHS(mlx5_paths), "mlx5_core",
	  "drivers/mlx5/README.md" },
	{ "mlx4_en", NULL, "TX CQ moderation period/count", DRV_COMPL_IRQ, true, NULL,
	  PARAMS(mlx4_params), PATHS(mlx4_paths), "mlx4_en", "drivers/mlx4/README.md" },
	{ "ice", NULL, "per-vector TX ITR in 2 us steps, dynamic by default", DRV_COMPL_IRQ, true,
	  "dynamic ITR (DIM)", PARAMS(ice_params), PATHS(intel_itr_paths), "ice",
	  "drivers/ice/README.md" },
	{ "i40e", NULL, "per-vector TX ITR in 2 us steps, dynamic by default", DRV_COMPL_IRQ, true,
	  "dynamic ITR", PARAMS(i40e_params), PATHS(intel_itr_paths), "i40e",
	  "drivers/i40e/README.md" },
	{ "ixgbe", NULL, "EITR per vector; RX and TX share vectors by default", DRV_COMPL_SHARED,
	  true, "dynamic ITR (rx-usecs 1)", PARAMS(ixgbe_params), PATHS(ixgbe_paths), "ixgbe",
	  "drivers/ixgbe/README.md" },
	{ "bnxt_en", NULL, "TX completion ring with timer and record-count coalescing",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(bnxt_params), PATHS(bnxt_paths), "bnxt_en",
	  "drivers/bnxt_en/README.md" },
	{ "ena", NULL, "TX interrupt moderation interval set by the driver, device granularity",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(ena_params), PATHS(ena_paths), "ena",
	  "drivers/ena/README.md" },
	{ "gve", NULL, "GQI: NAPI interrupt, no TX coalescing knobs; DQO: TX IRQ rate limit",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(gve_params), PATHS(gve_paths), "gve",
	  "drivers/gve/README.md" },
	{ "qeth", qeth_aliases,
	  "s390 QDIO: HiperSockets TX buffers completed by a later transmit/scan, or by TX "
	  "completion IRQ coalescing on newer kernels",
	  DRV_COMPL_NEXT_XMIT, true, NULL, PARAMS(qeth_params), PATHS(qeth_paths), "qeth",
	  "drivers/qeth/README.md" },
	{ "stmmac", stmmac_aliases,
	  "TX interrupt every tx-frames descriptors, otherwise the TX coalesce timer cleans the "
	  "ring",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(stmmac_params), PATHS(stmmac_paths), "stmmac",
	  "drivers/stmmac/README.md" },
	{ "txsim", NULL,
	  "reference device: wire serialization at a line rate, wire delay, configurable "
	  "completion "
	  "timer/count/mode and orphan/next-xmit pathologies",
	  DRV_COMPL_IRQ, true, NULL, PARAMS(txsim_params), PATHS(txsim_paths), "txsim",
	  "drivers/txsim/README.md" },
	{ "veth", NULL, "software pair: skb handed to the peer in xmit, no TX completion",
	  DRV_COMPL_SOFTWARE, false, NULL, NULL, 0, PATHS(veth_paths), "veth",
	  "drivers/veth/README.md" },
};

static const char *const completion_names[] = {
	[DRV_COMPL_IRQ] = "interrupt",	   [DRV_COMPL_SHARED] = "shared-interrupt",
	[DRV_COMPL_ORPHAN] = "orphan",	   [DRV_COMPL_NEXT_XMIT] = "next-xmit",
	[DRV_COMPL_SOFTWARE] = "software",
};

const char *drvdb_completion_name(enum drv_completion c)
{
	return (unsigned int)c < N(completion_names) ? completion_names[c] : "?";
}

unsigned int drvdb_count(void)
{
	return N(drvdb);
}

const struct drv_info *drvdb_at(unsigned int i)
{
	return i < N(drvdb) ? &drvdb[i] : NULL;
}

const struct drv_info *drvdb_lookup(const char *driver)
{
	unsigned int i;
	const char *const *a;

	if (!driver)
		return NULL;
	for (i = 0; i < N(drvdb); i++) {
		if (!strcmp(drvdb[i].driver, driver))
			return &drvdb[i];
		for (a = drvdb[i].aliases; a && *a; a++)
			if (!strcmp(*a, driver))
				return &drvdb[i];
	}
	/* ethtool -i names seen in the wild */
	if (!strcmp(driver, "mlx5e") || !strcmp(driver, "mlx5"))
		return drvdb_lookup("mlx5_core");
	if (!strcmp(driver, "mlx4") || !strcmp(driver, "mlx4_core"))
		return drvdb_lookup("mlx4_en");
	if (!strcmp(driver, "virtio-net") || !strcmp(driver, "virtio"))
		return drvdb_lookup("virtio_net");
	return NULL;
}

const struct drv_param *drvdb_param(const struct drv_info *d, const char *key)
{
	unsigned int i;

	for (i = 0; d && key && i < d->n_params; i++)
		if (!strcmp(d->params[i].key, key))
			return &d->params[i];
	return NULL;
}

int drvdb_default_u32(const char *driver, const char *key, unsigned int *v)
{
	const struct drv_param *p = drvdb_param(drvdb_lookup(driver), key);
	char *end;

	if (!p || !p->dflt || *p->dflt < '0' || *p->dflt > '9')
		return -ENOENT;
	*v = (unsigned int)strtoul(p->dflt, &end, 10);
	return 0;
}

/* A markdown table cell: "-" for unknown, '|' escaped. */
static void md_cell(FILE *f, const char *s, bool code)
{
	fputs(code ? " `" : " ", f);
	for (s = s ? s : "-"; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputs(code ? "` |" : " |", f);
}

void drvdb_readme(const struct drv_info *d, FILE *f)
{
	const char *const *a;
	unsigned int i;

	fprintf(f, "%s\n", DRVDB_README_BEGIN);
	if (d->aliases) {
		fputs("`ethtool -i` names:", f);
		for (a = d->aliases; *a; a++)
			fprintf(f, " `%s`", *a);
		fputs("\n\n", f);
	}
	fprintf(f, "%s.\n\n", d->summary);
	fprintf(f, "- Completion: %s\n", drvdb_completion_name(d->completion));
	fprintf(f, "- BQL: %s\n", d->bql ? "yes" : "no");
	fprintf(f, "- Adaptive TX moderation: %s\n", d->adaptive ? d->adaptive : "none");
	if (d->profile)
		fprintf(f,
			"- Shipped profile: `profiles/%s.profile` (documented defaults, "
			"unmeasured)\n",
			d->profile);
	if (d->n_params) {
		fprintf(f, "\n## Parameters that govern TX completion\n\n");
		fprintf(f, "| key | role | unit | granularity / range | default | source |\n");
		fprintf(f, "|---|---|---|---|---|---|\n");
	}
	for (i = 0; i < d->n_params; i++) {
		const struct drv_param *p = &d->params[i];

		fputc('|', f);
		md_cell(f, p->key, true);
		md_cell(f, p->role, false);
		md_cell(f, p->unit, false);
		md_cell(f, p->gran, false);
		md_cell(f, p->dflt, false);
		md_cell(f, p->source, false);
		fputc('\n', f);
	}
	if (d->n_paths)
		fprintf(f, "\n## Known pathologies\n\n");
	for (i = 0; i < d->n_paths; i++)
		fprintf(f, "- %s.\n  Remedy: %s. Source: %s.\n", d->paths[i].what,
			d->paths[i].remedy, d->paths[i].source);
	fprintf(f, "\nThe same facts are shown by `ethtune show` (`drvdb_lookup(\"%s\")`).\n%s\n",
		d->driver, DRVDB_README_END);
}

/* Optional text: nothing in text or JSON when the fact is unknown. */
static void show_opt_str(const char *key, const char *fmt, const char *v)
{
	if (v)
		print_string(PRINT_ANY, key, fmt, v);
}

void drvdb_show(const char *driver)
{
	const struct drv_info *d = drvdb_lookup(driver);
	unsigned int i;

	open_json_object("driver-knowledge");
	if (!d) {
		print_string(PRINT_ANY, "driver", "Driver knowledge (%s): ", driver ? driver : "?");
		print_na("summary", "%s (not in the database)\n");
		close_json_object();
		return;
	}
	print_string(PRINT_ANY, "driver", "Driver knowledge (%s): ", d->driver);
	print_string(PRINT_ANY, "summary", "%s\n", d->summary);
	print_string(PRINT_ANY, "completion", "  completion: %s",
		     drvdb_completion_name(d->completion));
	print_bool(PRINT_ANY, "bql", ", BQL: %s", d->bql);
	show_opt_str("adaptive", ", adaptive: %s", d->adaptive);
	print_nl();
	open_json_array(PRINT_JSON, "params");
	for (i = 0; i < d->n_params; i++) {
		const struct drv_param *p = &d->params[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "key", "  %s: ", p->key);
		print_string(PRINT_ANY, "role", "%s", p->role);
		show_opt_str("default", "; default %s", p->dflt);
		show_opt_str("unit", "; unit %s", p->unit);
		show_opt_str("granularity", "; %s", p->gran);
		print_string(PRINT_ANY, "source", " [%s]\n", p->source);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "pathologies");
	for (i = 0; i < d->n_paths; i++) {
		const struct drv_pathology *p = &d->paths[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "what", "  known: %s", p->what);
		print_string(PRINT_ANY, "remedy", "; remedy: %s", p->remedy);
		print_string(PRINT_ANY, "source", " [%s]\n", p->source);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	show_opt_str("profile", "  profile: %s\n", d->profile);
	close_json_object();
}

/* Software link kinds (and the drivers of the same name) with who frees their skbs. */
static const struct {
	const char *kind;
	enum drv_software sw;
} sw_kinds[] = {
	{ "veth", DRV_SW_RECEIVER }, { "netkit", DRV_SW_RECEIVER }, { "loopback", DRV_SW_RECEIVER },
	{ "tun", DRV_SW_READER },    { "tap", DRV_SW_READER },	    { "bridge", DRV_SW_LOWER },
	{ "macvlan", DRV_SW_LOWER }, { "ipvlan", DRV_SW_LOWER },    { "vxlan", DRV_SW_LOWER },
	{ "dummy", DRV_SW_LOWER },   { "geneve", DRV_SW_LOWER },
};

enum drv_software drvdb_software(const char *driver, const char *kind)
{
	const struct drv_info *di = drvdb_lookup(driver);
	unsigned int i;

	for (i = 0; i < sizeof(sw_kinds) / sizeof(sw_kinds[0]); i++)
		if ((kind && !strcmp(kind, sw_kinds[i].kind)) ||
		    (driver && !strcmp(driver, sw_kinds[i].kind)))
			return sw_kinds[i].sw;
	return di && di->completion == DRV_COMPL_SOFTWARE ? DRV_SW_LOWER : DRV_SW_NONE;
}

/* The driver knowledge names the knob first (virtio_net reports tx-usecs it cannot set without
 * NOTF_COAL; e1000e's TX follows rx-usecs); then tx-usecs, then rx-usecs for drivers that clean
 * TX in the RX interrupt. */
const char *drvdb_tx_knob(const char *driver, const struct et_vals *cur,
			  const struct drv_param **dp)
{
	const struct drv_info *di = drvdb_lookup(driver);
	unsigned int i;

	*dp = NULL;
	for (i = 0; di && i < di->n_params; i++) {
		const struct et_param *p = obj_param(&et_coalesce, di->params[i].key);

		if (p && p->type == ET_U32 && vals_has(cur, p->attr) && di->params[i].unit) {
			*dp = &di->params[i];
			return p->key;
		}
	}
	if (vals_has(cur, ETHTOOL_A_COALESCE_TX_USECS))
		return "tx-usecs";
	if (vals_has(cur, ETHTOOL_A_COALESCE_RX_USECS))
		return "rx-usecs";
	return NULL;
}
