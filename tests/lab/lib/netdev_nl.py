#!/usr/bin/python3
# Reads a device's queues, NAPIs and per-queue stats from the kernel's netdev netlink family (JSON).
"""netdev_nl.py IFNAME: prints {"family": bool, "queues": [...], "napis": [...],
"qstats": [...], "qstats-dev": {...}, "errors": {...}} for IFNAME in the current namespace.

A kernel without the family (before 6.2) gives "family": false; a request the kernel or the
driver does not answer gives its errno name under "errors" (queue-get from 6.8, qstats-get from
6.9 and only for drivers with netdev_stat_ops). The kernel's tools/net/ynl is not on the host."""
import errno
import json
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3

# include/uapi/linux/netdev.h
CMD_QUEUE_GET, CMD_NAPI_GET, CMD_QSTATS_GET = 10, 11, 12
QUEUE_ATTRS = {1: "id", 2: "ifindex", 3: "type", 4: "napi-id"}
NAPI_ATTRS = {1: "ifindex", 2: "id", 3: "irq", 4: "pid", 5: "defer-hard-irqs", 6: "gro-flush-timeout",
              7: "irq-suspend-timeout", 8: "threaded"}
QSTATS_ATTRS = {1: "ifindex", 2: "queue-type", 3: "queue-id", 4: "scope"}
for i, n in enumerate(("rx-packets rx-bytes tx-packets tx-bytes rx-alloc-fail rx-hw-drops "
                       "rx-hw-drop-overruns rx-csum-complete rx-csum-unnecessary rx-csum-none "
                       "rx-csum-bad rx-hw-gro-packets rx-hw-gro-bytes rx-hw-gro-wire-packets "
                       "rx-hw-gro-wire-bytes rx-hw-drop-ratelimits tx-hw-drops "
                       "tx-hw-drop-errors tx-csum-none tx-needs-csum tx-hw-gso-packets "
                       "tx-hw-gso-bytes tx-hw-gso-wire-packets tx-hw-gso-wire-bytes "
                       "tx-hw-drop-ratelimits tx-stop tx-wake").split()):
    QSTATS_ATTRS[8 + i] = n
QUEUE_TYPES = {0: "rx", 1: "tx"}


def attr(t, data):
    n = 4 + len(data)
    return struct.pack("HH", n, t) + data + b"\0" * ((4 - n % 4) % 4)


def attrs(buf):
    while len(buf) >= 4:
        n, t = struct.unpack_from("HH", buf)
        if n < 4:
            break
        yield t & 0x3fff, buf[4:n]
        buf = buf[(n + 3) & ~3:]


def uint(data):	# netlink "uint": 4 or 8 bytes
    return struct.unpack("I" if len(data) == 4 else "Q", data)[0]


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.seq = 0

    def talk(self, family, cmd, payload, dump):
        """The answers' attribute payloads; raises OSError with the kernel's errno."""
        self.seq += 1
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.s.send(struct.pack("IHHII", 16 + len(body), family, flags, self.seq, 0) + body)
        out = []
        while True:
            buf = self.s.recv(1 << 20)
            while len(buf) >= 16:
                n, t, _, seq, _ = struct.unpack_from("IHHII", buf)
                msg, buf = buf[16:n], buf[(n + 3) & ~3:]
                if seq != self.seq:
                    continue
                if t == NLMSG_ERROR:
                    err = -struct.unpack_from("i", msg)[0]
                    if err:
                        raise OSError(err, os.strerror(err))
                    return out
                if t == NLMSG_DONE:
                    return out
                out.append(msg[4:])

    def family(self, name):
        try:
            r = self.talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                          attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"), False)
        except OSError:
            return None
        for t, v in attrs(r[0]):
            if t == CTRL_ATTR_FAMILY_ID:
                return struct.unpack("H", v[:2])[0]
        return None


def decode(msg, names):
    d = {}
    for t, v in attrs(msg):
        if t in names:
            d[names[t]] = uint(v) if len(v) in (4, 8) else v.hex()
    if "type" in d:
        d["type"] = QUEUE_TYPES.get(d["type"], d["type"])
    if "queue-type" in d:
        d["queue-type"] = QUEUE_TYPES.get(d["queue-type"], d["queue-type"])
    return d


def main():
    ifindex = socket.if_nametoindex(sys.argv[1])
    g = Genl()
    fam = g.family("netdev")
    res = {"family": fam is not None, "ifindex": ifindex, "errors": {}}
    if fam is None:
        print(json.dumps(res))
        return
    idx = struct.pack("I", ifindex)
    reqs = (("queues", CMD_QUEUE_GET, attr(2, idx), QUEUE_ATTRS),
            ("napis", CMD_NAPI_GET, attr(1, idx), NAPI_ATTRS),
            ("qstats", CMD_QSTATS_GET, attr(1, idx) + attr(4, struct.pack("I", 1)), QSTATS_ATTRS),
            ("qstats-dev", CMD_QSTATS_GET, attr(1, idx), QSTATS_ATTRS))
    for key, cmd, payload, names in reqs:
        try:
            got = [decode(m, names) for m in g.talk(fam, cmd, payload, True)]
        except OSError as e:
            res["errors"][key] = errno.errorcode.get(e.errno, str(e.errno))
            continue
        got = [d for d in got if d.get("ifindex", ifindex) == ifindex]
        res[key] = got[0] if key == "qstats-dev" and got else got
    print(json.dumps(res))


if __name__ == "__main__":
    main()
