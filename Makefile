# ethtune: top-level build; all output goes to $(O) (ignored).
# `make deps GOAL...` (the README's `make deps check`): the optional backends are detected when
# make reads this file, before deps has installed anything, so the other goals run in a second
# make started once the packages are in.
DEPS_THEN	:= $(if $(filter deps,$(MAKECMDGOALS)),$(filter-out deps,$(MAKECMDGOALS)))
ifneq ($(DEPS_THEN),)
.DEFAULT_GOAL	:= deps
deps:
	./tests/lib/deps.sh
deps-then: deps
	$(MAKE) --no-print-directory -j$$(nproc) $(DEPS_THEN)
$(DEPS_THEN): deps-then
	@:
.PHONY: deps deps-then $(DEPS_THEN)
else
# SAN=1: the same build with ASan and UBSan, in build/san; `make check SAN=1` runs the unit and
# namespace suites with it (a sanitizer report fails the test that triggered it).
# (SAN=fuzz is the same for the objects the fuzz harnesses link, see below.)
ifneq ($(SAN),)
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ifeq ($(SAN),fuzz)
SAN_FLAGS	+= -fsanitize=fuzzer-no-link
else
O		?= build/san
endif
CFLAGS		?= -O1 -g
CFLAGS		+= $(SAN_FLAGS)
LDFLAGS		+= $(SAN_FLAGS)
endif
O		?= build
.DEFAULT_GOAL	:= all
PREFIX		?= /usr/local
CC		?= gcc
PKG_CONFIG	?= pkg-config

PKGS		:= libmnl jansson libcrypto libcap-ng
CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
		   -Iinclude -I$(O) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS		+= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lmnl -ljansson -lcrypto -lcap-ng) -lm

# Every C file under ethtune/ (a layer's folder, or a subsystem's folder in it such as
# ethtune/analysis/validate/) and the user-space backends under drivers/*/ are part of the tool.
# Kernel modules live in drivers/*/kmod/ and are built by the lab, not here; the BPF programs
# (ethtune/trace/bpf/*.bpf.c) by mk/bpf.mk.
# mk/rdma.mk and mk/bpf.mk take out the sources of an optional backend this host cannot build
# (or WITH_RDMA=0 / WITH_BPF=0), leaving their *_none.c stand-ins, and name it in UNIT_MISSING.
ALL_SRCS	:= $(wildcard ethtune/*/*.c) $(filter-out %.bpf.c,$(wildcard ethtune/*/*/*.c)) \
		   $(wildcard drivers/*/*.c)
TOOL_SRCS	:= $(ALL_SRCS)
UNIT_MISSING	:=
-include mk/*.mk
TOOL_OBJS	:= $(patsubst %.c,$(O)/obj/%.o,$(TOOL_SRCS))
LIB_OBJS	:= $(filter-out $(O)/obj/ethtune/cli/main.o,$(TOOL_OBJS))

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
# A test that needs an optional backend says so in a "// NEEDS: rdma" (or bpf) line; in a build
# without that backend it is a script reporting one KTAP SKIP instead.
UNIT_SKIP_SRCS	:= $(if $(strip $(UNIT_MISSING)),$(shell grep -lE \
		   '^// NEEDS:.*\<($(subst $(eval) ,|,$(strip $(UNIT_MISSING))))\>' $(UNIT_SRCS)))
UNIT_SKIP_BINS	:= $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SKIP_SRCS))

all: $(O)/ethtune $(O)/ethtune.bash

$(O)/ethtune: $(TOOL_OBJS) $(EXTRA_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(EXTRA_LDLIBS)

# Bash completion, generated from the command tables by the binary itself.
$(O)/ethtune.bash: $(O)/ethtune
	$(O)/ethtune completion bash > $@.tmp
	mv $@.tmp $@

$(O)/libethtune.a: $(LIB_OBJS) $(EXTRA_OBJS)
	@rm -f $@ # a fresh archive: an object whose source moved must not linger
	$(AR) rcs $@ $^

$(O)/obj/%.o: %.c $(wildcard include/*/*.h) $(EXTRA_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Unit tests link the tool's objects (minus main) and cmocka; a test may add link seams
# with "// LDFLAGS: ..." lines (e.g. -Wl,--wrap=symbol), one or more.
# Their fakes and cmocka's test functions keep the signatures of what they stand in for, used
# or not: -Wunused-parameter is off for them alone.
$(O)/tests/%: tests/unit/%.c $(O)/libethtune.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-parameter -o $@ $< $(shell sed -n 's|^// LDFLAGS: ||p' $<) \
		$(O)/libethtune.a -lcmocka $(LDLIBS) $(EXTRA_LDLIBS)

$(UNIT_SKIP_BINS): $(O)/tests/%: tests/unit/%.c
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\necho "KTAP version 1"\necho "1..1"\necho "ok 1 %s # SKIP %s"\n' \
		"$*" "built without $(strip $(filter $(UNIT_MISSING),$(shell sed -n 's|^// NEEDS: ||p' $<)))" >$@
	chmod +x $@

unit: $(UNIT_BINS) $(O)/drvdb-readme

# The generator of the drivers' README blocks links the tool's objects like the unit tests.
$(O)/drvdb-readme: drivers/drvdb-readme.c $(O)/libethtune.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(O)/libethtune.a $(LDLIBS) $(EXTRA_LDLIBS)

# drivers/*/README.md: regenerate the blocks the driver knowledge makes (checked by
# tests/unit/drvdb_readme.sh).
readmes: $(O)/drvdb-readme
	./tests/unit/drvdb_readme.sh --fix

deps:
	./tests/lib/deps.sh

# The optional backends this build has (detected, or WITH_RDMA=0 / WITH_BPF=0).
config:
	@echo "WITH_RDMA=$(WITH_RDMA) WITH_BPF=$(WITH_BPF)"

check: all unit
	$(if $(filter 1,$(SAN)),ETHTUNE_SUITES="$${ETHTUNE_SUITES:-unit ns}" \
		ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
		UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}) O=$(O) ./tests/run.sh

# The quick suite, for while you work: unit and ns natively (no sanitizers, no fuzzing, no
# guest), QUICK_JOBS files at a time (tests/run.sh's ETHTUNE_JOBS), with the smaller campaigns
# the san suite runs (the signal campaign's 4 trials an operation, 1 round of each iperf3
# comparison). `make check` is CI's: every campaign at its full size.
QUICK_JOBS	?= 4
check-quick: all unit
	ETHTUNE_SUITES="unit ns" ETHTUNE_JOBS=$(QUICK_JOBS) ETHTUNE_POOL=one SIG_TRIALS=$${SIG_TRIALS:-4} \
		PROBE_IPERF_ROUNDS=$${PROBE_IPERF_ROUNDS:-1} O=$(O) ./tests/run.sh

# Fuzzing with clang's libFuzzer (ASan and UBSan on): one harness per input the tool parses,
# each run for FUZZ_TIME seconds from its corpus in tests/fuzz/corpus/NAME (what it finds new
# stays in $(O)/fuzz/corpus/NAME). The tool's objects are rebuilt with clang in $(O)/fuzz.
FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_O		:= $(O)/fuzz
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_NAMES	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS	:= $(patsubst %,$(FUZZ_O)/fuzz_%,$(FUZZ_NAMES))

$(FUZZ_O)/libethtune.a: FORCE
	$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) SAN=fuzz WITH_BPF=0 WITH_RDMA=0 \
		$(FUZZ_O)/libethtune.a

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_O)/libethtune.a
	$(FUZZ_CC) -O1 -g -std=gnu11 -Wall -Iinclude -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< \
		$(FUZZ_O)/libethtune.a $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	./tests/fuzz/run.sh $(FUZZ_O) $(FUZZ_TIME) $(FUZZ_NAMES)

FORCE:

lab-check: all unit
	ETHTUNE_SUITES=lab ./tests/run.sh

bench: all
	./tests/bench/run.sh

install: all
	install -D -m 0755 $(O)/ethtune $(DESTDIR)$(PREFIX)/sbin/ethtune
	install -D -m 0644 docs/ethtune.8 $(DESTDIR)$(PREFIX)/share/man/man8/ethtune.8
	install -D -m 0644 $(O)/ethtune.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ethtune
	mkdir -p $(DESTDIR)$(PREFIX)/share/ethtune/profiles
	cp -r profiles/. $(DESTDIR)$(PREFIX)/share/ethtune/profiles/

# The Debian package (contrib/debian; docs/fleet.md): the files git knows and the new ones it does
# not ignore, copied to $(O)/deb/ethtune-VERSION with debian/ from contrib/debian, built there by
# dpkg-buildpackage (DEB_JOBS compilers); the .deb and .buildinfo/.changes land in $(O)/deb/.
ETHTUNE_VERSION	:= $(shell sed -n 's/^\#define ETHTUNE_VERSION "\(.*\)"/\1/p' include/util/ethtune.h)
DEB_DIR		:= $(O)/deb/ethtune-$(ETHTUNE_VERSION)
DEB_JOBS	?= 2
deb:
	rm -rf $(DEB_DIR) $(O)/deb/ethtune_* $(O)/deb/ethtune-dbgsym_*
	mkdir -p $(DEB_DIR)
	git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C $(DEB_DIR)
	rm -rf $(DEB_DIR)/debian
	cp -r contrib/debian $(DEB_DIR)/debian
	cd $(DEB_DIR) && dpkg-buildpackage -us -uc -b -j$(DEB_JOBS)

format:
	clang-format -i $(ALL_SRCS) include/*/*.h tests/unit/*.c tests/fuzz/*.c drivers/*.c

clean:
	rm -rf $(O)

.PHONY: all unit readmes deps config check check-quick lab-check bench install deb format clean fuzz fuzz-build FORCE
.SECONDARY:

# The main job against the built-in lab (see README).
demo: all
	./tests/demo.sh
.PHONY: demo
endif
