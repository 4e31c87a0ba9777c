# ethtune: top-level build; all output goes to $(O) (ignored).
O		?= build
.DEFAULT_GOAL	:= all
PREFIX		?= /usr/local
CC		?= gcc
PKG_CONFIG	?= pkg-config

PKGS		:= libmnl jansson
CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
		   -Iinclude -I$(O) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS		+= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lmnl -ljansson) -lm

# Every C file under ethtune/ and the user-space backends under drivers/*/ are part of the tool.
# Kernel modules live in drivers/*/kmod/ and are built by the lab, not here.
TOOL_SRCS	:= $(wildcard ethtune/*/*.c) $(wildcard drivers/*/*.c)
-include mk/*.mk
TOOL_OBJS	:= $(patsubst %.c,$(O)/obj/%.o,$(TOOL_SRCS))
LIB_OBJS	:= $(filter-out $(O)/obj/ethtune/cli/main.o,$(TOOL_OBJS))

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))

all: $(O)/ethtune

$(O)/ethtune: $(TOOL_OBJS) $(EXTRA_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(EXTRA_LDLIBS)

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

unit: $(UNIT_BINS) $(O)/drvdb-readme

# Build-time tools (tools/*.c) link the tool's objects like the unit tests.
$(O)/drvdb-readme: tools/drvdb-readme.c $(O)/libethtune.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(O)/libethtune.a $(LDLIBS) $(EXTRA_LDLIBS)

# drivers/*/README.md: regenerate the blocks the driver knowledge makes (checked by
# tests/unit/drvdb_readme.sh).
readmes: $(O)/drvdb-readme
	./tests/unit/drvdb_readme.sh --fix

deps:
	./tests/lib/deps.sh

check: all unit
	./tests/run.sh

lab-check: all unit
	ETHTUNE_SUITES=lab ./tests/run.sh

bench: all
	./tests/bench/run.sh

install: all
	install -D -m 0755 $(O)/ethtune $(DESTDIR)$(PREFIX)/sbin/ethtune
	install -D -m 0644 docs/ethtune.8 $(DESTDIR)$(PREFIX)/share/man/man8/ethtune.8
	mkdir -p $(DESTDIR)$(PREFIX)/share/ethtune/profiles
	cp -r profiles/. $(DESTDIR)$(PREFIX)/share/ethtune/profiles/

format:
	clang-format -i $(TOOL_SRCS) include/*/*.h tests/unit/*.c tools/*.c

clean:
	rm -rf $(O)

.PHONY: all unit readmes deps check lab-check bench install format clean
.SECONDARY:

# The main job against the built-in lab (see README).
demo: all
	./tests/demo.sh
.PHONY: demo
