#!/usr/bin/env python3
"""Compare `ethtune show DEV --json` field by field with ethtool and ip (read-only). KTAP out."""
import json, os, re, subprocess, sys

dev = sys.argv[2] if len(sys.argv) > 2 else "eth0"
et = sys.argv[1]
n = 0
failed = 0


def result(ok, desc, diag=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(("ok" if ok else "not ok"), n, desc)
    if diag:
        for line in diag.splitlines():
            print("#", line)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


ours = json.loads(run(et, "show", dev, "--json").stdout)


def num(v):
    if v in ("on", "off"):
        return v == "on"
    try:
        return int(v)
    except ValueError:
        return v


def ethtool_pairs(args, sections=None):
    """'key: value' lines of ethtool text output; sections maps headers to key prefixes."""
    out = run("ethtool", *args, dev)
    if out.returncode:
        return None
    pairs, prefix = {}, ""
    for line in out.stdout.splitlines():
        if sections:
            for hdr, pre in sections.items():
                if line.startswith(hdr):
                    prefix = pre
        m = re.match(r"^\s*([A-Za-z][A-Za-z0-9 -]*?):\s+(\S.*)$", line)
        if m:
            pairs[prefix + m.group(1).strip()] = m.group(2).strip()
    return pairs


print("KTAP version 1")
print("# ethtune show %s vs ethtool and ip" % dev)

# Coalesce: ethtool 6.1 text (newer ethtool has --json -c; both are accepted).
coal = ours.get("coalesce", {})
j = run("ethtool", "--json", "-c", dev)
if j.returncode == 0:
    ref = {k: v for k, v in json.loads(j.stdout)[0].items() if k != "ifname"}
    ref = {("cqe-mode-rx" if k == "cqe-mode-rx" else k): v for k, v in ref.items()}
else:
    text = ethtool_pairs(["-c"]) or {}
    ren = {"rx-frame-low": "rx-frames-low", "tx-frame-low": "tx-frames-low",
           "rx-frame-high": "rx-frames-high", "tx-frame-high": "tx-frames-high"}
    ref = {ren.get(k, k): num(v) for k, v in text.items()
           if re.match(r"^[a-z-]+$", k)}
    m = re.search(r"Adaptive RX: (\S+)\s+TX: (\S+)", run("ethtool", "-c", dev).stdout)
    if m:
        ref["adaptive-rx"], ref["adaptive-tx"] = num(m.group(1)), num(m.group(2))
    m = re.search(r"CQE mode RX: (\S+)\s+TX: (\S+)", run("ethtool", "-c", dev).stdout)
    if m:
        ref["cqe-mode-rx"], ref["cqe-mode-tx"] = num(m.group(1)), num(m.group(2))
bad = []
for k, v in ref.items():
    if v == "n/a":
        if k in coal:
            bad.append("%s: ethtool n/a, ethtune %r" % (k, coal[k]))
    elif coal.get(k) != v:
        bad.append("%s: ethtool %r, ethtune %r" % (k, v, coal.get(k)))
result(not bad and len(ref) > 0, "coalesce: %d ethtool fields agree" % len(ref), "\n".join(bad))

# Rings: maxima and current values.
text = ethtool_pairs(["-g"], {"Pre-set maximums": "max ", "Current hardware": ""}) or {}
rmap = {"RX": "rx", "RX Mini": "rx-mini", "RX Jumbo": "rx-jumbo", "TX": "tx",
        "RX Buf Len": "rx-buf-len", "CQE Size": "cqe-size", "TX Push": "tx-push"}
rings = ours.get("rings", {})
bad, cnt = [], 0
for k, v in text.items():
    base = k[4:] if k.startswith("max ") else k
    if base not in rmap:
        continue
    key = rmap[base] + ("-max" if k.startswith("max ") else "")
    cnt += 1
    if v == "n/a":
        if key in rings:
            bad.append("%s: ethtool n/a, ethtune %r" % (key, rings[key]))
    elif rings.get(key) != num(v):
        bad.append("%s: ethtool %r, ethtune %r" % (key, v, rings.get(key)))
result(not bad and cnt > 0, "rings: %d ethtool fields agree" % cnt, "\n".join(bad))

# Channels.
text = ethtool_pairs(["-l"], {"Pre-set maximums": "max ", "Current hardware": ""}) or {}
ch = ours.get("channels", {})
bad, cnt = [], 0
for k, v in text.items():
    base = k[4:] if k.startswith("max ") else k
    if base not in ("RX", "TX", "Other", "Combined"):
        continue
    key = base.lower() + ("-max" if k.startswith("max ") else "")
    cnt += 1
    if v == "n/a":
        if key in ch:
            bad.append("%s: ethtool n/a, ethtune %r" % (key, ch[key]))
    elif ch.get(key) != num(v):
        bad.append("%s: ethtool %r, ethtune %r" % (key, v, ch.get(key)))
result(not bad and cnt > 0, "channels: %d ethtool fields agree" % cnt, "\n".join(bad))

# Driver info.
text = ethtool_pairs(["-i"]) or {}
bad = []
for k in ("driver", "version", "firmware-version", "bus-info"):
    v = text.get(k, "")
    if v and ours.get(k) != v:
        bad.append("%s: ethtool %r, ethtune %r" % (k, v, ours.get(k)))
    if not v and k in ours:
        bad.append("%s: ethtool empty, ethtune %r" % (k, ours[k]))
result(not bad, "driver info agrees with ethtool -i", "\n".join(bad))

# Link attributes from ip -d -j.
ip = json.loads(run("ip", "-d", "-j", "link", "show", dev).stdout)[0]
imap = {"mtu": "mtu", "min_mtu": "min-mtu", "max_mtu": "max-mtu", "txqlen": "txqueuelen",
        "num_tx_queues": "num-tx-queues", "num_rx_queues": "num-rx-queues",
        "gso_max_size": "gso-max-size", "gso_max_segs": "gso-max-segs",
        "gso_ipv4_max_size": "gso-ipv4-max-size", "tso_max_size": "tso-max-size",
        "tso_max_segs": "tso-max-segs", "gro_max_size": "gro-max-size",
        "gro_ipv4_max_size": "gro-ipv4-max-size", "qdisc": "qdisc"}
link = ours.get("link", {})
bad, cnt = [], 0
for k, key in imap.items():
    if k not in ip:
        continue
    cnt += 1
    if link.get(key) != ip[k]:
        bad.append("%s: ip %r, ethtune %r" % (k, ip[k], link.get(key)))
if ip.get("operstate") and ours.get("operstate") != ip["operstate"]:
    bad.append("operstate: ip %r, ethtune %r" % (ip["operstate"], ours.get("operstate")))
result(not bad and cnt >= 8, "link: %d ip fields agree" % cnt, "\n".join(bad))

# Features: ethtool -k group lines for the names ethtune shows.
text = ethtool_pairs(["-k"]) or {}
fmap = {"sg": "scatter-gather", "tso": "tcp-segmentation-offload",
        "gso": "generic-segmentation-offload", "gro": "generic-receive-offload",
        "tx": "tx-checksumming", "rx": "rx-checksumming", "lro": "large-receive-offload"}
feats = ours.get("features", {})
bad = []
for ours_k, ek in fmap.items():
    if ek not in text:
        continue
    if feats.get(ours_k) != (text[ek].split()[0] == "on"):
        bad.append("%s: ethtool %r, ethtune %r" % (ours_k, text[ek], feats.get(ours_k)))
result(not bad, "features agree with ethtool -k", "\n".join(bad))

# Sysctls of this namespace.
bad = []
for k, v in ours.get("sysctl", {}).items():
    ref = open("/proc/sys/" + k.replace(".", "/")).read().strip().replace("\t", " ")
    if str(v) != ref:
        bad.append("%s: /proc %r, ethtune %r" % (k, ref, v))
result(not bad and ours.get("sysctl"), "sysctls agree with /proc/sys", "\n".join(bad))

# The document fits its schema (docs/schema/show.json).
chk = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib",
                      "schema_check.py"), "show", "-"], input=json.dumps(ours), capture_output=True, text=True)
result(chk.returncode == 0, "show --json fits docs/schema/show.json", chk.stderr)

print("1..%d" % n)
sys.exit(1 if failed else 0)
