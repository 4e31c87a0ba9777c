#!/usr/bin/python3
# tuned's own profile loader and [net] parser over profile directories, without the daemon: prints
# each complaint (tuned's log at warning or above, loader errors, unknown options), one a line.
import logging
import os
import sys

import tuned.logs
import tuned.profiles
import tuned.profiles.variables
import tuned.utils.global_config
from tuned.plugins.plugin_net import NetTuningPlugin
from tuned.utils.commands import commands

complaints = []


class Catch(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            complaints.append("%s: %s" % (current, record.getMessage()))


log = tuned.logs.get()
log.addHandler(Catch())
log.propagate = False
for h in list(log.handlers):
    if not isinstance(h, Catch):
        log.removeHandler(h)

variables = tuned.profiles.variables.Variables()
net = NetTuningPlugin.__new__(NetTuningPlugin)  # its parsers only: no devices, no daemon
net._variables = variables
net._cmd = commands()
net_options = set(NetTuningPlugin._get_config_options().keys())
current = ""
for d in sys.argv[1:]:
    d = d.rstrip("/")
    current = os.path.basename(d)
    loader = tuned.profiles.Loader(tuned.profiles.Locator([os.path.dirname(d)]),
                                   tuned.profiles.Factory(),
                                   tuned.profiles.Merger(),
                                   tuned.utils.global_config.GlobalConfig(), variables)
    try:
        profile = loader.load([current])
    except Exception as e:
        complaints.append("%s: loader: %s" % (current, e))
        continue
    for name, unit in profile.units.items():
        if unit.type == "net":
            for opt, val in unit.options.items():
                if opt not in net_options:
                    complaints.append("%s: [%s] unknown option %s" % (current, name, opt))
                elif opt in ("coalesce", "ring", "channels", "pause"):
                    parsed = net._parse_config_parameters(val, opt)
                    if parsed is None or not net._check_parameters(opt, parsed):
                        complaints.append("%s: [%s] %s=%s refused" % (current, name, opt, val))
                elif opt == "features":
                    if net._parse_config_parameters(val, opt) is None:
                        complaints.append("%s: [%s] features=%s refused" % (current, name, val))
                elif opt in ("mtu", "txqueuelen") and not str(val).isdigit():
                    complaints.append("%s: [%s] %s=%s is not a number" % (current, name, opt, val))
        elif unit.type == "sysfs":
            for path in unit.options:
                if not path.startswith("/sys/"):
                    complaints.append("%s: [%s] %s is not a sysfs path" % (current, name, path))
        elif unit.type not in ("sysctl", "main"):
            complaints.append("%s: unit [%s] of type %s" % (current, name, unit.type))
for c in complaints:
    print(c)
